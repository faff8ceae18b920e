import type { Format } from '../i18n/format.js';

// The words of the catalog page (./index.ts), in Bahasa Indonesia (the reference) and English:
// spread into the catalogs (../i18n/id.ts, ../i18n/en.ts) as their `catalog` block.

export function catalogMessagesId(f: Format) {
  return {
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
  };
}

export function catalogMessagesEn(f: Format): ReturnType<typeof catalogMessagesId> {
  return {
    catalog: {
      title: 'Catalog',
      search: 'Search',
      searchPlaceholder: 'Name, instructor, code…',
      category: 'Category',
      allCategories: 'All categories',
      noCategory: 'No category',
      sortBy: 'Sort by',
      sort: { newest: 'Newest first', name: 'Name (A to Z)', students: 'Most students', modules: 'Most modules' },
      show: 'Show courses',
      instructor: (name) => `Instructor: ${name}`,
      found: (n) => f.plural(n, { one: '# course found.', other: '# courses found.' }),
      noMatch: 'No course matches.',
      list: 'Courses',
      field: { search: 'search', categoryId: 'category', sortBy: 'sort order', page: 'page' },
    },
  };
}
