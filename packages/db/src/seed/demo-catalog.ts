/**
 * The demo catalog as data: categories, people and about thirty courses of an Indonesian
 * professional-education platform. demo.ts and demo-course-rows.ts turn it into rows.
 */
import type { DetailSection } from '../schema/catalog.js';

/**
 * The demo institution, with a transfer account (a made-up one) so that the demo's transfer
 * instructions name where to pay; its admins change it on /dashboard/institution.
 */
export const DEMO_INSTITUTION = {
  id: 1,
  name: 'Ikatan Profesi Nusantara (Demo)',
  transferBank: 'Bank Contoh Nusantara (demo)',
  transferAccountNumber: '0000-1234-5678',
  transferAccountHolder: 'Ikatan Profesi Nusantara',
} as const;

export const DEMO_PARTNER = {
  issuer: 'demo-partner.local',
  name: 'Demo Partner',
  jwksUrl: 'http://127.0.0.1:3002/.well-known/jwks.json',
} as const;

export const DEMO_TEACHER_EMAIL = 'teacher@demo.lms';
export const DEMO_API_KEY_NAME = 'Demo key (seed)';

/**
 * The demo staff. Staff accounts are reached through SSO only by an operator's link
 * (docs/architecture.md, "Identity on SSO"); the seed links each one to the demo partner under
 * `partnerMembershipId`, as
 * `lms-admin user link --email <e> --iss demo-partner.local --membership-id <id>` would, so the
 * README's walk-through can sign in as a teacher through the demo partner.
 */
export const DEMO_STAFF = [
  { email: DEMO_TEACHER_EMAIL, name: 'Budi Santoso, S.E., M.Ak.', role: 'teacher', partnerMembershipId: 'STAFF-001' },
  { email: 'teacher2@demo.lms', name: 'Dr. Rina Wijaya, M.Kes.', role: 'teacher', partnerMembershipId: 'STAFF-002' },
  { email: 'admin@demo.lms', name: 'Admin Demo', role: 'admin', partnerMembershipId: 'STAFF-003' },
  { email: 'superadmin@demo.lms', name: 'Super Admin Demo', role: 'super_admin', partnerMembershipId: 'STAFF-004' },
] as const;

export const DEMO_CATEGORIES = [
  { code: 'AKT', name: 'Akuntansi dan Keuangan' },
  { code: 'PJK', name: 'Perpajakan' },
  { code: 'TI', name: 'Teknologi Informasi' },
  { code: 'HKM', name: 'Hukum dan Regulasi' },
  { code: 'KES', name: 'Kesehatan' },
  { code: 'MNJ', name: 'Manajemen dan Kepemimpinan' },
] as const;

export type DemoCategoryCode = (typeof DEMO_CATEGORIES)[number]['code'];

export interface DemoCourse {
  code: string;
  name: string;
  category: DemoCategoryCode | null;
  instructor: string;
  /** Teacher 1 (the demo teacher) or teacher 2. */
  teacher: 1 | 2;
  price: number;
  priceNonMember: number | null;
  priceMahasiswa: number | null;
  nilaiKum: number | null;
  /** draft: not published; hidden: published without an eventCode; live: buyer-visible. */
  state: 'live' | 'draft' | 'hidden';
  type?: 'self_paced' | 'scheduled';
  enrollmentType?: 'code' | 'open' | 'approval';
  modules: string[];
}

const I = {
  budi: 'Budi Santoso, S.E., M.Ak.',
  rina: 'Dr. Rina Wijaya, M.Kes.',
  siti: 'Dr. Siti Rahmawati, Ak., CA',
  agus: 'Agus Prasetyo, S.H., M.H.',
  dewi: 'Dewi Lestari, S.Kom., M.T.',
  hendra: 'Hendra Gunawan, BKP',
  maya: 'Maya Sari, S.Psi., M.M.',
};

// biome-ignore format: one course per line, read as a table
export const DEMO_COURSES: DemoCourse[] = [
  { code: 'AKT-101', name: 'Dasar-Dasar Akuntansi Keuangan', category: 'AKT', instructor: I.budi, teacher: 1, price: 350000, priceNonMember: 450000, priceMahasiswa: 200000, nilaiKum: 6, state: 'live', modules: ['Persamaan Dasar Akuntansi', 'Siklus Akuntansi', 'Penyusunan Laporan Keuangan'] },
  { code: 'AKT-201', name: 'Penerapan PSAK 73: Sewa', category: 'AKT', instructor: I.siti, teacher: 1, price: 500000, priceNonMember: 650000, priceMahasiswa: 300000, nilaiKum: 8, state: 'live', modules: ['Ruang Lingkup PSAK 73', 'Pengukuran Aset Hak Guna', 'Pengungkapan'] },
  { code: 'AKT-202', name: 'Akuntansi Sektor Publik dan SAP', category: 'AKT', instructor: I.siti, teacher: 1, price: 450000, priceNonMember: 550000, priceMahasiswa: null, nilaiKum: 8, state: 'live', modules: ['Standar Akuntansi Pemerintahan', 'Laporan Realisasi Anggaran', 'Neraca Pemerintah Daerah'] },
  { code: 'AKT-301', name: 'Audit Internal Berbasis Risiko', category: 'AKT', instructor: I.siti, teacher: 1, price: 750000, priceNonMember: 900000, priceMahasiswa: 450000, nilaiKum: 10, state: 'live', type: 'scheduled', modules: ['Kerangka COSO', 'Penilaian Risiko', 'Pelaporan Hasil Audit'] },
  { code: 'AKT-302', name: 'Analisis Laporan Keuangan untuk Kredit', category: 'AKT', instructor: I.budi, teacher: 1, price: 400000, priceNonMember: null, priceMahasiswa: null, nilaiKum: 6, state: 'live', modules: ['Rasio Likuiditas', 'Rasio Solvabilitas', 'Proyeksi Arus Kas'] },
  { code: 'AKT-401', name: 'IFRS 17 Kontrak Asuransi (Draf)', category: 'AKT', instructor: I.siti, teacher: 1, price: 900000, priceNonMember: 1100000, priceMahasiswa: null, nilaiKum: 12, state: 'draft', modules: ['Model Pengukuran Umum', 'Pendekatan Alokasi Premi'] },
  { code: 'PJK-101', name: 'Pengantar Perpajakan Indonesia', category: 'PJK', instructor: I.hendra, teacher: 1, price: 250000, priceNonMember: 350000, priceMahasiswa: 150000, nilaiKum: 4, state: 'live', enrollmentType: 'open', modules: ['Asas dan Subjek Pajak', 'NPWP dan PKP', 'Tata Cara Pembayaran'] },
  { code: 'PJK-201', name: 'PPh Pasal 21 untuk Praktisi SDM', category: 'PJK', instructor: I.hendra, teacher: 1, price: 400000, priceNonMember: 500000, priceMahasiswa: 250000, nilaiKum: 6, state: 'live', modules: ['Penghasilan Bruto', 'Tarif Efektif Rata-Rata', 'Pelaporan SPT Masa'] },
  { code: 'PJK-202', name: 'PPN dan Faktur Pajak Elektronik', category: 'PJK', instructor: I.hendra, teacher: 1, price: 400000, priceNonMember: 500000, priceMahasiswa: 250000, nilaiKum: 6, state: 'live', modules: ['Objek PPN', 'e-Faktur', 'Pengkreditan Pajak Masukan'] },
  { code: 'PJK-301', name: 'Transfer Pricing dan Dokumentasi', category: 'PJK', instructor: I.hendra, teacher: 1, price: 850000, priceNonMember: 1000000, priceMahasiswa: null, nilaiKum: 10, state: 'live', modules: ['Prinsip Kewajaran', 'Master File dan Local File', 'Pemeriksaan Transfer Pricing'] },
  { code: 'PJK-302', name: 'Coretax: Administrasi Pajak Baru', category: 'PJK', instructor: I.hendra, teacher: 1, price: 300000, priceNonMember: 400000, priceMahasiswa: 200000, nilaiKum: 4, state: 'hidden', modules: ['Registrasi Coretax', 'Pelaporan di Coretax'] },
  { code: 'TI-101', name: 'Literasi Data untuk Profesional', category: 'TI', instructor: I.dewi, teacher: 1, price: 300000, priceNonMember: 400000, priceMahasiswa: 150000, nilaiKum: 4, state: 'live', enrollmentType: 'open', modules: ['Jenis Data', 'Visualisasi Sederhana', 'Membaca Dasbor'] },
  { code: 'TI-201', name: 'Analisis Data dengan Spreadsheet', category: 'TI', instructor: I.dewi, teacher: 1, price: 350000, priceNonMember: 450000, priceMahasiswa: 200000, nilaiKum: 6, state: 'live', modules: ['Fungsi Lookup', 'Tabel Pivot', 'Otomasi Laporan'] },
  { code: 'TI-202', name: 'Keamanan Siber untuk UMKM', category: 'TI', instructor: I.dewi, teacher: 1, price: 450000, priceNonMember: 550000, priceMahasiswa: 250000, nilaiKum: 6, state: 'live', modules: ['Ancaman Umum', 'Kata Sandi dan 2FA', 'Rencana Tanggap Insiden'] },
  { code: 'TI-301', name: 'Audit Sistem Informasi', category: 'TI', instructor: I.dewi, teacher: 1, price: 800000, priceNonMember: 950000, priceMahasiswa: null, nilaiKum: 10, state: 'live', type: 'scheduled', modules: ['COBIT 2019', 'Pengendalian Umum TI', 'Pengujian Pengendalian Aplikasi'] },
  { code: 'TI-302', name: 'Pelindungan Data Pribadi (UU PDP)', category: 'TI', instructor: I.agus, teacher: 1, price: 500000, priceNonMember: 600000, priceMahasiswa: 300000, nilaiKum: 8, state: 'hidden', modules: ['Prinsip UU PDP', 'Hak Subjek Data', 'Kewajiban Pengendali Data'] },
  { code: 'TI-401', name: 'Kecerdasan Artifisial untuk Akuntan (Draf)', category: 'TI', instructor: I.dewi, teacher: 1, price: 600000, priceNonMember: 750000, priceMahasiswa: null, nilaiKum: null, state: 'draft', modules: ['Konsep Dasar AI', 'Studi Kasus Otomasi'] },
  { code: 'HKM-101', name: 'Hukum Perusahaan dan UU Cipta Kerja', category: 'HKM', instructor: I.agus, teacher: 1, price: 400000, priceNonMember: 500000, priceMahasiswa: 250000, nilaiKum: 6, state: 'live', modules: ['Perseroan Terbatas', 'Perizinan Berusaha', 'Ketenagakerjaan'] },
  { code: 'HKM-201', name: 'Kontrak Bisnis dan Penyelesaian Sengketa', category: 'HKM', instructor: I.agus, teacher: 1, price: 550000, priceNonMember: 650000, priceMahasiswa: null, nilaiKum: 8, state: 'live', enrollmentType: 'approval', modules: ['Asas Kebebasan Berkontrak', 'Wanprestasi', 'Arbitrase dan Mediasi'] },
  { code: 'HKM-202', name: 'Anti Pencucian Uang untuk Profesi', category: 'HKM', instructor: I.agus, teacher: 1, price: 450000, priceNonMember: 550000, priceMahasiswa: 250000, nilaiKum: 6, state: 'live', modules: ['Rezim APU-PPT', 'Prinsip Mengenali Pengguna Jasa', 'Pelaporan ke PPATK'] },
  { code: 'KES-101', name: 'Manajemen Fasilitas Kesehatan Primer', category: 'KES', instructor: I.rina, teacher: 2, price: 400000, priceNonMember: 500000, priceMahasiswa: 200000, nilaiKum: 6, state: 'live', modules: ['Puskesmas dan Klinik', 'Sistem Rujukan', 'Mutu Layanan'] },
  { code: 'KES-201', name: 'Keselamatan Pasien dan Akreditasi', category: 'KES', instructor: I.rina, teacher: 2, price: 500000, priceNonMember: 600000, priceMahasiswa: 250000, nilaiKum: 8, state: 'live', modules: ['Sasaran Keselamatan Pasien', 'Pelaporan Insiden', 'Standar Akreditasi'] },
  { code: 'KES-202', name: 'Pembiayaan Kesehatan dan JKN', category: 'KES', instructor: I.rina, teacher: 2, price: 450000, priceNonMember: 550000, priceMahasiswa: 250000, nilaiKum: 6, state: 'live', modules: ['Skema JKN', 'INA-CBGs', 'Kendali Mutu dan Biaya'] },
  { code: 'KES-301', name: 'Gizi Masyarakat dan Pencegahan Stunting', category: 'KES', instructor: I.rina, teacher: 2, price: 350000, priceNonMember: 450000, priceMahasiswa: 150000, nilaiKum: 6, state: 'draft', modules: ['Seribu Hari Pertama Kehidupan', 'Intervensi Gizi Spesifik'] },
  { code: 'MNJ-101', name: 'Kepemimpinan Tim Lintas Generasi', category: 'MNJ', instructor: I.maya, teacher: 1, price: 350000, priceNonMember: 450000, priceMahasiswa: 200000, nilaiKum: 4, state: 'live', modules: ['Gaya Kepemimpinan', 'Komunikasi Efektif', 'Umpan Balik dan Coaching'] },
  { code: 'MNJ-201', name: 'Manajemen Proyek Praktis', category: 'MNJ', instructor: I.maya, teacher: 1, price: 500000, priceNonMember: 600000, priceMahasiswa: 300000, nilaiKum: 8, state: 'live', modules: ['Inisiasi Proyek', 'Perencanaan dan Jadwal', 'Pengendalian dan Penutupan'] },
  { code: 'MNJ-202', name: 'Tata Kelola Perusahaan yang Baik (GCG)', category: 'MNJ', instructor: I.agus, teacher: 1, price: 450000, priceNonMember: 550000, priceMahasiswa: 250000, nilaiKum: 6, state: 'live', modules: ['Prinsip TARIF', 'Peran Komite Audit', 'Penilaian GCG'] },
  { code: 'MNJ-301', name: 'Manajemen Risiko Berbasis ISO 31000', category: 'MNJ', instructor: I.maya, teacher: 1, price: 650000, priceNonMember: 800000, priceMahasiswa: null, nilaiKum: 10, state: 'hidden', modules: ['Kerangka ISO 31000', 'Identifikasi dan Analisis Risiko', 'Perlakuan Risiko'] },
  { code: 'UMM-101', name: 'Etika Profesi dan Integritas', category: null, instructor: I.budi, teacher: 1, price: 0, priceNonMember: 0, priceMahasiswa: 0, nilaiKum: 2, state: 'live', enrollmentType: 'open', modules: ['Kode Etik Profesi', 'Konflik Kepentingan', 'Studi Kasus Integritas'] },
  { code: 'UMM-102', name: 'Menulis Laporan Bisnis yang Jelas', category: null, instructor: I.maya, teacher: 1, price: 200000, priceNonMember: 250000, priceMahasiswa: 100000, nilaiKum: null, state: 'draft', modules: ['Struktur Laporan', 'Bahasa yang Lugas'] },
];

/** Bundles: two course codes each, in the first course's category. */
// biome-ignore format: one bundle per line, read as a table
export const DEMO_BUNDLES = [
  { name: 'Paket Akuntan Publik Muda', description: 'Dasar akuntansi lalu analisis laporan keuangan.', category: 'AKT', courses: ['AKT-101', 'AKT-302'], price: 650000, priceNonMember: 800000 },
  { name: 'Paket Audit Terpadu', description: 'Audit internal dan audit sistem informasi dalam satu paket.', category: 'AKT', courses: ['AKT-301', 'TI-301'], price: 1350000, priceNonMember: null },
  { name: 'Paket Pajak Karyawan', description: 'PPh 21 dan PPN untuk praktisi SDM dan keuangan.', category: 'PJK', courses: ['PJK-201', 'PJK-202'], price: 700000, priceNonMember: 900000 },
  { name: 'Paket Pajak Lengkap', description: 'Dari pengantar perpajakan hingga transfer pricing.', category: 'PJK', courses: ['PJK-101', 'PJK-301'], price: null, priceNonMember: null },
  { name: 'Paket Data dan Keamanan', description: 'Analisis data dan keamanan siber untuk usaha kecil.', category: 'TI', courses: ['TI-201', 'TI-202'], price: 700000, priceNonMember: 850000 },
  { name: 'Paket Manajer Klinik', description: 'Manajemen fasilitas kesehatan dan keselamatan pasien.', category: 'KES', courses: ['KES-101', 'KES-201'], price: 800000, priceNonMember: 1000000 },
  { name: 'Paket Pemimpin Proyek', description: 'Kepemimpinan tim dan manajemen proyek.', category: 'MNJ', courses: ['MNJ-101', 'MNJ-201'], price: 750000, priceNonMember: null },
  { name: 'Paket Regulasi Digital (belum tayang)', description: 'UU PDP dan Coretax: satu kursus belum punya kode acara.', category: 'TI', courses: ['TI-302', 'PJK-302'], price: 700000, priceNonMember: 850000 },
] as const;

const FIRST_NAMES = [
  'Adi',
  'Ayu',
  'Bayu',
  'Citra',
  'Dimas',
  'Eka',
  'Fajar',
  'Gita',
  'Hadi',
  'Indah',
  'Joko',
  'Kartika',
  'Lukman',
  'Mega',
  'Nanda',
  'Okta',
  'Putri',
  'Rizky',
  'Sari',
  'Taufik',
  'Umi',
  'Wahyu',
  'Yuni',
  'Zainal',
];
const LAST_NAMES = [
  'Pratama',
  'Saputra',
  'Wulandari',
  'Hidayat',
  'Nugroho',
  'Kusuma',
  'Siregar',
  'Nasution',
  'Simanjuntak',
  'Harahap',
  'Setiawan',
  'Purnomo',
  'Handayani',
  'Syahputra',
];

export interface DemoStudent {
  email: string;
  name: string;
  tier: 'anggota' | 'umum' | 'mahasiswa';
  membershipId: string;
  /** Came through the demo partner's SSO: has an identity of the demo partner. Others are local accounts. */
  viaPartner: boolean;
}

/** Forty students with stable e-mails (the natural key the seed matches on). */
export const DEMO_STUDENTS: DemoStudent[] = Array.from({ length: 40 }, (_, i) => {
  const first = FIRST_NAMES[i % FIRST_NAMES.length];
  const last = LAST_NAMES[(i * 5) % LAST_NAMES.length];
  const tier = (['anggota', 'anggota', 'umum', 'mahasiswa'] as const)[i % 4];
  const n = String(i + 1).padStart(3, '0');
  const membershipId =
    tier === 'anggota' ? `IPN-2024-${n}` : tier === 'umum' ? `3174${String(100000000000 + i * 7919).slice(0, 12)}` : `NIM${20210000 + i}`;
  return {
    email: `${first.toLowerCase()}.${last.toLowerCase()}${i + 1}@demo.lms`,
    name: `${first} ${last}`,
    tier,
    membershipId,
    viaPartner: i % 3 !== 2,
  };
});

/** Detail sections for buyer-visible courses: the same shape, a few course-specific words. */
export function detailSectionsFor(
  course: DemoCourse,
): Record<'admissions' | 'academics' | 'tuitionAndFinancing' | 'careers' | 'studentExperience', DetailSection | null> {
  if (course.state === 'draft') {
    return { admissions: null, academics: null, tuitionAndFinancing: null, careers: null, studentExperience: null };
  }
  return {
    admissions: {
      requirements: 'Terbuka untuk anggota, umum dan mahasiswa. Membawa laptop untuk sesi praktik.',
      prerequisites: course.code.endsWith('101') ? 'Tidak ada.' : 'Disarankan telah mengikuti kelas tingkat dasar di kategori yang sama.',
    },
    academics: {
      credits: course.nilaiKum === null ? 'Tanpa SKPK' : `${course.nilaiKum} SKPK`,
      workload: `${course.modules.length * 3} jam belajar mandiri`,
      assessment: 'Kuis per bab, kuis modul dan ujian akhir (nilai minimum 70).',
    },
    tuitionAndFinancing: {
      totalCost: course.price,
      paymentOptions: 'Transfer bank, virtual account, QRIS.',
      ...(course.priceMahasiswa !== null ? { scholarships: 'Harga khusus mahasiswa tersedia.' } : {}),
    },
    careers: {
      outcomes: `Mampu menerapkan materi "${course.name}" dalam pekerjaan sehari-hari.`,
      industries: 'Jasa keuangan, pemerintahan, BUMN, konsultan.',
    },
    studentExperience: {
      support: 'Forum diskusi dan sesi tanya jawab bulanan bersama pengajar.',
      ...(course.state === 'live' ? { testimonials: '"Materinya runtut dan langsung bisa dipakai." (peserta angkatan lalu)' } : {}),
    },
  };
}

/** Chapters of a module: two to four, named after the module. */
export function chapterNamesFor(moduleName: string, moduleIndex: number): string[] {
  const patterns = ['Pengantar {m}', 'Konsep Kunci {m}', 'Studi Kasus: {m}', 'Latihan Terbimbing {m}'];
  const count = 2 + ((moduleName.length + moduleIndex) % 3);
  return patterns.slice(0, count).map((p) => p.replace('{m}', moduleName));
}
