import type { ApiKeysScriptMessages } from '../client/api-keys-page.js';
import { enrolMessagesId } from '../learning/messages.js';
import { creditMessagesId } from '../learning/credit-messages.js';
import { studioMessagesId } from '../studio/messages.js';
import { certificateMessagesId } from '../learning/certificate-messages.js';
import { pathMessagesId, quizLabelId, moduleQuizLabelId, examLabelId } from '../learning/path-messages.js';
import { type Html, html } from '../view/html.js';
import type { DateInput, Format } from './format.js';

/**
 * The pages in Bahasa Indonesia: the default language, and the reference of the catalog. Its
 * shape is the type `Messages` (below) that every other language must match key for key, so a
 * message missing in one language, or left over in one, stops the build.
 *
 * A message is a string, or a function of its parameters that returns a string, or `Html` where
 * a sentence holds a link or markup (written with the `html` template, which escapes every
 * parameter). A sentence is one message, never glued together from fragments in code. Numbers,
 * money, dates and plurals go through `f` (./format.ts: Intl); Indonesian has no plural forms,
 * so its plurals have only `other`.
 *
 * Adding a page: add its section here and in ./en.ts; the compiler lists what is missing.
 */
export function id(f: Format) {
  const again = 'Silakan kembali ke situs web organisasi Anda lalu masuk lagi dari sana.';
  return {
    ...enrolMessagesId(f),
    ...creditMessagesId(f),
    ...studioMessagesId(),
    ...pathMessagesId(f),
    ...certificateMessagesId(f),
    layout: {
      title: (title: string) => `${title} · LMS`,
      skipToContent: 'Langsung ke konten',
      mainNav: 'Menu utama',
      dashboard: 'Dasbor',
      catalog: 'Katalog',
      bundles: 'Paket',
      apiKeys: 'Kunci API',
      signedInAs: (name: string): Html => html`<span class="sr-only">Masuk sebagai </span>${name}`,
      signOut: 'Keluar',
      language: 'Bahasa',
    },

    /** The error pages; 503 is the page of a database outage. */
    errorPages: {
      403: { title: 'Tidak diizinkan', text: 'Akun Anda tidak dapat membuka halaman ini.' },
      404: { title: 'Halaman tidak ditemukan', text: 'Halaman ini tidak ada, atau tidak dapat Anda lihat.' },
      413: {
        title: 'Kiriman terlalu besar',
        text: 'Isi formulir ini lebih besar dari yang dapat diterima. Kembali, persingkat, lalu kirim lagi.',
      },
      429: {
        title: 'Terlalu banyak permintaan',
        text: 'Terlalu banyak permintaan dari Anda atau dari alamat Anda dalam waktu singkat. Silakan tunggu sebentar, lalu coba lagi.',
      },
      500: { title: 'Terjadi kesalahan', text: 'Halaman ini belum dapat ditampilkan. Silakan coba lagi sebentar lagi.' },
      503: {
        title: 'Layanan sedang tidak tersedia',
        text: 'Layanan kami sedang mengalami gangguan sementara. Silakan coba lagi dalam beberapa menit.',
      },
    },
    errors: {
      backToDashboard: 'Kembali ke dasbor Anda',
      howToSignIn: 'Cara masuk',
    },

    /** A learner's status in a course (the catalog's `status`). */
    status: { 'not-started': 'Belum mulai', 'in-progress': 'Sedang berjalan', completed: 'Selesai' },
    /** A member's price tier (`tier`). */
    tier: { anggota: 'Anggota', umum: 'Umum', mahasiswa: 'Mahasiswa' },
    certificate: { issued: 'Sudah terbit', eligible: 'Memenuhi syarat', notYet: 'Belum' },
    common: {
      none: 'Tidak ada',
      progressOf: (name: string) => `Kemajuan ${name}`,
      kum: (n: number) => `${f.number(n)} KUM`,
      modules: (n: number) => f.plural(n, { other: '# modul' }),
      chapters: (n: number) => f.plural(n, { other: '# bab' }),
      students: (n: number) => f.plural(n, { other: '# peserta' }),
      questions: (n: number) => f.plural(n, { other: '# soal' }),
      /** The note on a page's query parameters that were not valid and were ignored. */
      ignored: (fields: string[]) => `Nilai yang tidak valid diabaikan untuk: ${f.list(fields)}.`,
      pager: {
        label: 'Halaman',
        previous: 'Sebelumnya',
        next: 'Berikutnya',
        pageOf: (page: number, pages: number) => `Halaman ${f.number(page)} dari ${f.number(pages)}`,
      },
    },

    /** A sign-in link opened in a browser where someone else is signed in (routes/sso: login CSRF). */
    switchAccount: {
      title: 'Ganti akun?',
      current: (name: string) => `Di peramban ini Anda sedang masuk sebagai ${name}.`,
      incoming: (who: string) => `Tautan yang Anda buka akan memasukkan Anda sebagai ${who}.`,
      newAccount: (email: string) => `akun baru untuk ${email}`,
      why: 'Jika Anda tidak membuka tautan masuk dari situs organisasi Anda sendiri, jangan lanjutkan: seseorang mungkin ingin Anda bekerja di akunnya.',
      continue: (who: string) => `Lanjutkan sebagai ${who}`,
      stay: (name: string) => `Tetap sebagai ${name}`,
    },
    signIn: {
      title: 'Masuk',
      intro:
        'Anggota masuk melalui organisasinya: buka situs web organisasi Anda, masuk di sana, lalu ikuti tautan menuju kursus. ' +
        'Setelah itu Anda akan tiba di dasbor Anda.',
      technicalDetail: 'Detail teknis',
      /** What went wrong with a sign-in, for the person (see explainSignInError in ../sign-in.ts). */
      problems: {
        missingToken: `Tautan masuk tidak lengkap: tautan itu tidak membawa token masuk. ${again}`,
        missingEmail:
          'Organisasi Anda tidak mengirimkan alamat e-mail Anda, padahal kami memerlukannya untuk membuka akun Anda. Silakan hubungi organisasi Anda.',
        missingMembershipId:
          'Organisasi Anda tidak mengirimkan nomor anggota Anda, padahal kami memerlukannya untuk membuka akun Anda. Silakan hubungi organisasi Anda.',
        memberInactive:
          'Akun Anda sedang tidak aktif sehingga Anda tidak dapat masuk. Silakan hubungi organisasi Anda atau tim dukungan kami.',
        emailInUse:
          'Di sini sudah ada akun dengan alamat e-mail Anda, tetapi akun itu tidak terhubung dengan layanan masuk organisasi Anda. ' +
          'Karena itu Anda tidak dimasukkan ke akun tersebut dan tidak ada yang diubah di dalamnya. ' +
          'Jika itu memang akun Anda, mintalah tim dukungan kami untuk menghubungkannya dengan organisasi Anda.',
        accountCreationFailed: 'Akun Anda belum dapat dibuat saat ini. Silakan coba lagi dalam beberapa menit.',
        sessionCreationFailed: 'Anda belum dapat masuk saat ini. Silakan coba lagi dalam beberapa menit.',
        temporarilyUnavailable:
          'Layanan kami sedang mengalami gangguan sementara sehingga Anda belum dapat masuk. Silakan coba lagi dalam beberapa menit.',
        failed: `Proses masuk tidak berhasil. ${again}`,
        expired: `Tautan masuk sudah kedaluwarsa (tautan hanya berlaku beberapa menit), atau jam di sistem organisasi Anda tidak tepat. ${again}`,
        alreadyUsed: `Tautan masuk ini sudah pernah dipakai; setiap tautan hanya berlaku satu kali. ${again}`,
        unknownOrganisation: 'Organisasi Anda belum terdaftar untuk masuk di sini. Silakan hubungi organisasi Anda.',
        keysUnavailable:
          'Kami belum dapat memeriksa tanda tangan organisasi Anda pada tautan masuk (kuncinya sedang tidak tersedia bagi kami). ' +
          'Silakan coba lagi nanti atau hubungi organisasi Anda.',
        tooLongLived: `Tautan masuk ditolak karena masa berlakunya terlalu panjang. ${again}`,
        badSignature: `Tanda tangan pada tautan masuk tidak sah. ${again}`,
        wrongAudience: `Tautan masuk ini tidak ditujukan untuk situs ini. ${again}`,
        notThroughGateway: `Tautan masuk tidak datang melalui jalur masuk resmi organisasi Anda. ${again}`,
        ssoNotConfigured: 'Masuk melalui organisasi belum disiapkan di situs ini. Silakan hubungi tim dukungan kami.',
        invalid: `Tautan masuk tidak sah. ${again}`,
      },
    },

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

    catalog: {
      title: 'Katalog',
      search: 'Cari',
      searchPlaceholder: 'Nama, pengajar, kode…',
      category: 'Kategori',
      allCategories: 'Semua kategori',
      noCategory: 'Tanpa kategori',
      sortBy: 'Urutkan',
      sort: { newest: 'Terbaru', name: 'Nama (A–Z)', students: 'Peserta terbanyak', modules: 'Modul terbanyak' },
      show: 'Tampilkan kursus',
      instructor: (name: string) => `Pengajar: ${name}`,
      found: (n: number) => f.plural(n, { other: '# kursus ditemukan.' }),
      noMatch: 'Tidak ada kursus yang cocok.',
      list: 'Daftar kursus',
      /** The page's parameters, as the note on ignored values names them. */
      field: { search: 'pencarian', categoryId: 'kategori', sortBy: 'urutan', page: 'halaman' },
    },

    course: {
      backToCatalog: '← Katalog',
      category: 'Kategori',
      instructor: 'Pengajar',
      code: 'Kode kursus',
      enrolmentCode: 'Kode pendaftaran',
      dates: 'Tanggal',
      courseDates: (start: DateInput, end: DateInput): string => {
        const range = f.dayRange(start, end);
        if (range) return range;
        const [from, until] = [f.day(start), f.day(end)];
        if (from) return `Mulai ${from}`;
        if (until) return `Sampai ${until}`;
        return '—';
      },
      kumPoints: 'Poin KUM',
      price: 'Harga',
      notForSale: 'Tidak dijual',
      students: 'Peserta',
      yourStatus: 'Status Anda',
      yourProgress: 'Kemajuan Anda',
      courseProgress: 'Kemajuan kursus',
      certificate: 'Sertifikat',
      modules: 'Modul',
      noModules: 'Belum ada modul.',
      noLongerOffered:
        'Kursus ini tidak lagi ditawarkan. Anda tetap dapat mempelajarinya, dengan kemajuan dan sertifikat Anda, karena Anda sudah terdaftar.',
      noChapters: 'Belum ada bab.',
      locked: 'Terkunci',
      unlocked: 'Terbuka',
      done: 'Selesai',
      chapterQuiz: (title: string, questions: number) => `${quizLabelId(title)} (${f.plural(questions, { other: '# soal' })})`,
      moduleQuiz: (title: string, questions: number) => `${moduleQuizLabelId(title)} (${f.plural(questions, { other: '# soal' })})`,
      finalExam: (title: string, questions: number, passMark: number) =>
        `${examLabelId(title)} · ${f.plural(questions, { other: '# soal' })} · nilai lulus ${f.number(passMark)}`,
    },

    apiKeys: {
      title: 'Kunci API',
      intro: html`Dengan kunci API, sistem Anda sendiri dapat membaca katalog (<code>GET /api/courses</code>) dan metrik kemajuan. Kirim kunci di header <code>x-api-key</code>. Jaga kerahasiaan kunci seperti kata sandi.`,
      create: 'Buat kunci',
      name: 'Nama',
      namePlaceholder: 'mis. Integrasi situs web',
      submit: 'Buat kunci',
      newKey: html`Kunci baru Anda <span id="new-key-name"></span>:`,
      copy: 'Salin kunci',
      shownOnce:
        'Salin kunci ini sekarang: kunci tidak akan ditampilkan lagi. Kami hanya menyimpan hash-nya; jika kunci hilang, cabut lalu buat kunci baru.',
      yourKeys: 'Kunci Anda',
      column: { name: 'Nama', prefix: 'Awalan', created: 'Dibuat', lastUsed: 'Terakhir dipakai', state: 'Status' },
      none: 'Anda belum memiliki kunci API.',
      teachersOnly: 'Kunci API hanya untuk akun pengajar.',
      /**
       * The texts of the page and of its script (../client/dashboard.ts), which receives them as
       * a data attribute: plain strings whose `{name}`-style placeholders both fill in.
       */
      script: {
        never: 'Belum pernah',
        revoke: 'Cabut',
        revoked: 'Dicabut {date}',
        nameRequired: 'Beri nama untuk kunci ini.',
        copied: 'Tersalin.',
        selectToCopy: 'Sudah dipilih: tekan Ctrl+C (atau Cmd+C) untuk menyalin.',
        confirmRevoke: 'Cabut kunci "{name}"? Sistem yang memakainya akan langsung berhenti bekerja. Tindakan ini tidak dapat dibatalkan.',
        sessionEnded: 'Sesi Anda telah berakhir. Silakan masuk lagi.',
        badName: 'Nama kunci tidak diterima: gunakan 1 sampai 100 karakter.',
        notAllowed: 'Akun Anda tidak diizinkan melakukan ini.',
        notFound: 'Kunci ini tidak ditemukan. Muat ulang halaman untuk melihat keadaan terbaru.',
        tooManyRequests: 'Terlalu banyak permintaan. Silakan coba lagi sebentar lagi.',
        failed: 'Permintaan gagal (kode {status}). Silakan coba lagi.',
        offline: 'Server tidak dapat dihubungi. Periksa koneksi Anda lalu coba lagi.',
      } satisfies ApiKeysScriptMessages,
    },
    learn: {
      refused: {
        notEnrolled: 'Anda belum terdaftar di kursus ini. Daftar dulu di halaman kursus.',
        locked: (step: { kind: 'chapter' | 'quiz'; name: string } | null) =>
          step === null
            ? 'Bagian ini masih terkunci.'
            : step.kind === 'chapter'
              ? `Bagian ini masih terkunci: selesaikan dulu bab “${step.name}”.`
              : `Bagian ini masih terkunci: lulus dulu kuis “${step.name}”.`,
      },
      chapter: {
        ofCourse: (course: string, module: string) => `${course} · ${module}`,
        backToCourse: 'Kembali ke kursus',
        completed: 'Selesai',
        markComplete: 'Tandai selesai',
        takeQuiz: 'Kerjakan kuis bab ini',
        next: 'Bab berikutnya',
      },
      quiz: {
        passMark: (score: number) => `Nilai lulus: ${f.number(score)}`,
        timeLimit: (minutes: number) => `Batas waktu: ${f.number(minutes)} menit`,
        attempt: (n: number, max: number) => `Percobaan ${f.number(n)} dari ${f.number(max)}`,
        maxAttempts: (max: number) => `Paling banyak ${f.number(max)} percobaan`,
        start: 'Mulai mengerjakan',
        submit: 'Kirim jawaban',
        answerText: 'Jawaban Anda',
        until: (date: DateInput) => `Kirim sebelum ${f.dateTime(date) ?? ''}`,
        result: 'Hasil',
        score: (score: number) => `Nilai: ${f.number(score)}`,
        passed: 'Lulus',
        failed: 'Belum lulus',
        attemptsLeft: (n: number) => `Sisa percobaan: ${f.number(n)}`,
        tryAgain: 'Coba lagi',
        certificateEarned: 'Selamat! Sertifikat Anda sudah terbit.',
      },
      certificate: {
        title: 'Sertifikat',
        statement: 'Dengan ini menyatakan bahwa',
        completed: 'telah menyelesaikan kursus',
        membershipId: 'Nomor anggota',
        kum: 'Nilai KUM',
        issuedOn: 'Tanggal terbit',
        institution: 'Penyelenggara',
        code: 'Kode verifikasi',
        verifyAt: 'Periksa keaslian di',
        print: 'Gunakan fungsi cetak peramban Anda untuk mencetak halaman ini.',
        valid: 'Sertifikat ini sah.',
        revoked: 'Sertifikat ini dicabut pada {date}. Alasan: {reason}',
        mine: 'Sertifikat saya',
        open: 'Lihat sertifikat',
        credential: 'Unduh kredensial digital (Open Badges 3.0)',
        credentialHint: 'Berkas bertanda tangan yang dapat diverifikasi siapa pun, untuk dompet digital Anda atau asosiasi Anda.',
      },
    },
  };
}

/** Every message of the pages, as the Indonesian catalog has them. */
export type Messages = ReturnType<typeof id>;
