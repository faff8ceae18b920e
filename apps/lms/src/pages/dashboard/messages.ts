import type { Format } from '../i18n/format.js';
import { type Html, html } from '../view/html.js';

// The words of the dashboard (./index.ts), in Bahasa Indonesia (the reference) and English: spread
// into the catalogs (../i18n/id.ts, ../i18n/en.ts) as their `dashboard` block.

export function dashboardMessagesId(f: Format) {
  return {
    dashboard: {
      title: 'Dasbor',
      welcome: (name: string) => `Selamat datang, ${name}`,
      atAGlance: 'Ringkasan',
      coursesEnrolled: 'Kursus diikuti',
      completed: 'Selesai',
      certificates: 'Sertifikat',
      kumEarned: 'Poin KUM diperoleh',
      yourCourses: 'Kursus Anda',
      courses: 'Kursus',
      notEnrolled: html`Anda belum terdaftar di kursus apa pun. <a href="/dashboard/catalog">Lihat katalog</a>.`,
      column: {
        course: 'Kursus',
        status: 'Status',
        state: 'Status',
        progress: 'Kemajuan',
        chaptersDone: 'Bab selesai',
        kum: 'KUM',
        certificate: 'Sertifikat',
        category: 'Kategori',
        students: 'Peserta',
        modules: 'Modul',
      },
      account: 'Akun Anda',
      name: 'Nama',
      email: 'E-mail',
      tier: 'Kategori peserta',
      membershipId: 'Nomor anggota',
      metrics: 'Metrik platform',
      otherCurrencies: (amounts: string[]) => `Juga dibayar dalam mata uang lain (tidak dijumlahkan): ${f.list(amounts)}.`,
      figure: {
        courses: 'Kursus',
        publishedClasses: 'Kelas terbit',
        students: 'Peserta',
        enrollments: 'Pendaftaran',
        completionRate: 'Tingkat penyelesaian',
        buyers30Days: 'Pembeli 30 hari terakhir',
        revenue30Days: 'Pendapatan 30 hari terakhir',
        kum30Days: 'KUM diterbitkan 30 hari terakhir',
        certificates: 'Sertifikat',
        peopleWithCertificate: 'Pemegang sertifikat',
      },
      byCategory: 'Per kategori',
      chart: {
        completionRate: 'Tingkat penyelesaian per kategori',
        buyers: 'Pembeli dalam 30 hari terakhir',
        revenue: 'Pendapatan dalam 30 hari terakhir',
        certificates: 'Sertifikat yang diterbitkan',
        noCategories: 'Belum ada kategori.',
      },
      state: { draft: 'Draf', publishedWithoutEventCode: 'Terbit, tanpa kode acara', inCatalog: 'Tampil di katalog' },
      draftsIncluded: 'Termasuk draf',
      everyCourseDraftsIncluded: 'Semua kursus, termasuk draf',
      noOwnCourses: 'Anda belum memiliki kursus.',
      noCourses: 'Belum ada kursus.',
      showingNewest: (shown: number, total: number): Html =>
        html`Menampilkan ${f.number(shown)} kursus terbaru dari ${f.number(total)}. <a href="/dashboard/catalog">Lihat semuanya di katalog</a>.`,
      apiKeysText: html`Hubungkan sistem Anda sendiri dengan katalog melalui kunci API. <a href="/dashboard/api-keys">Kelola kunci API Anda</a>.`,
    },
  };
}

export type DashboardMessages = ReturnType<typeof dashboardMessagesId>;

export function dashboardMessagesEn(f: Format): DashboardMessages {
  return {
    dashboard: {
      title: 'Dashboard',
      welcome: (name) => `Welcome, ${name}`,
      atAGlance: 'At a glance',
      coursesEnrolled: 'Courses enrolled',
      completed: 'Completed',
      certificates: 'Certificates',
      kumEarned: 'KUM points earned',
      yourCourses: 'Your courses',
      courses: 'Courses',
      notEnrolled: html`You are not enrolled in any course yet. <a href="/dashboard/catalog">Browse the catalog</a>.`,
      column: {
        course: 'Course',
        status: 'Status',
        state: 'State',
        progress: 'Progress',
        chaptersDone: 'Chapters done',
        kum: 'KUM',
        certificate: 'Certificate',
        category: 'Category',
        students: 'Students',
        modules: 'Modules',
      },
      account: 'Your account',
      name: 'Name',
      email: 'E-mail',
      tier: 'Tier',
      membershipId: 'Membership ID',
      metrics: 'Platform metrics',
      otherCurrencies: (amounts) => `Also paid in other currencies (not added in): ${f.list(amounts)}.`,
      figure: {
        courses: 'Courses',
        publishedClasses: 'Published classes',
        students: 'Students',
        enrollments: 'Enrollments',
        completionRate: 'Completion rate',
        buyers30Days: 'Buyers, last 30 days',
        revenue30Days: 'Revenue, last 30 days',
        kum30Days: 'KUM issued, last 30 days',
        certificates: 'Certificates',
        peopleWithCertificate: 'People with a certificate',
      },
      byCategory: 'By category',
      chart: {
        completionRate: 'Completion rate per category',
        buyers: 'Buyers in the last 30 days',
        revenue: 'Revenue in the last 30 days',
        certificates: 'Certificates issued',
        noCategories: 'No categories yet.',
      },
      state: { draft: 'Draft', publishedWithoutEventCode: 'Published, no event code', inCatalog: 'In the catalog' },
      draftsIncluded: 'Drafts included',
      everyCourseDraftsIncluded: 'Every course, drafts included',
      noOwnCourses: 'You have no courses yet.',
      noCourses: 'There are no courses yet.',
      showingNewest: (shown, total): Html =>
        html`Showing the ${f.number(shown)} newest of ${f.number(total)}. <a href="/dashboard/catalog">See them all in the catalog</a>.`,
      apiKeysText: html`Connect your own systems to the catalog with an API key. <a href="/dashboard/api-keys">Manage your API keys</a>.`,
    },
  };
}
