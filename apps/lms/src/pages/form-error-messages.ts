// The words of a form's problems, said beside the field (./form-errors.ts maps a schema's issue to
// one of them), in Bahasa Indonesia (the reference) and English. Spread into the catalogs
// (./i18n/id.ts, ./i18n/en.ts) as their `formErrors` block.

export function formErrorMessagesId() {
  return {
    formErrors: {
      required: 'Isian ini wajib diisi.',
      invalid: 'Isian ini tidak dapat diterima: periksa lagi.',
      number: 'Isi dengan angka, mis. 70.',
      wholeNumber: 'Isi dengan bilangan bulat, tanpa koma.',
      atLeast: (n: number) => `Isi angka ${n} atau lebih.`,
      above: (n: number) => `Isi angka lebih dari ${n}.`,
      atMost: (n: number) => `Isi angka ${n} atau kurang.`,
      tooShort: (n: number) => `Paling sedikit ${n} karakter.`,
      tooLong: (n: number) => `Paling banyak ${n} karakter.`,
      atLeastItems: (n: number) => `Paling sedikit ${n} butir.`,
      tooMany: (n: number) => `Paling banyak ${n} butir.`,
      choice: 'Pilih salah satu pilihan yang tersedia.',
      date: 'Tulis tanggal sebagai TTTT-BB-HH, mis. 2026-12-31.',
      endBeforeStart: 'Tanggal selesai tidak boleh sebelum tanggal mulai.',
      amount: 'Tulis jumlah seperti 350.000 atau Rp 350.000,50: titik memisahkan ribuan, koma sebelum sen.',
      amountAmbiguous:
        'Jumlah dengan koma sebelum tiga angka tidak jelas: tulis 350.000 untuk tiga ratus lima puluh ribu (koma hanya untuk sen).',
      amountTooBig: 'Jumlah terlalu besar: paling banyak 12 angka sebelum koma dan 2 sesudahnya.',
      currency: 'Tulis kode mata uang tiga huruf, mis. IDR.',
      creditScheme: 'Tulis nama skema dengan huruf kapital, angka atau tanda hubung, diawali huruf, mis. SKP.',
      url: 'Tulis alamat lengkap yang diawali https://.',
      code: 'Tulis kodenya, paling banyak 64 karakter.',
      sectionLine: (line: string) => `Baris «${line}»: tulis sebagai «kunci: nilai».`,
      quiz: {
        oneRight: 'Tulis nomor tepat satu pilihan yang benar, mis. 2.',
        someRight: 'Tulis nomor paling sedikit satu pilihan yang benar, mis. 1,3.',
        twoOptions: 'Tulis paling sedikit dua pilihan, satu per baris.',
        trueFalseTwo: 'Soal benar/salah punya tepat dua pilihan, mis. Benar dan Salah.',
        noOptions: 'Soal jenis ini tanpa pilihan: kosongkan kotak pilihan.',
        needAnswer: 'Tulis jawaban yang benar.',
        rightRange: (n: number) => `Tulis nomor pilihan dari 1 sampai ${n}.`,
        sameOptions: 'Setiap pilihan harus berbeda.',
        roleTaken: (name: string) => `Kuis «${name}» sudah memegang peran ini dalam kursus: pilih peran lain, atau ubah kuis itu dahulu.`,
        finalNotPreTest: 'Ujian akhir tidak dapat menjadi pre-test.',
      },
    },
  };
}

export type FormErrorMessages = ReturnType<typeof formErrorMessagesId>;
export type FormErrorWords = FormErrorMessages['formErrors'];

export function formErrorMessagesEn(): FormErrorMessages {
  return {
    formErrors: {
      required: 'This field is required.',
      invalid: 'This value cannot be accepted: check it.',
      number: 'Enter a number, e.g. 70.',
      wholeNumber: 'Enter a whole number, without decimals.',
      atLeast: (n: number) => `Enter ${n} or more.`,
      above: (n: number) => `Enter more than ${n}.`,
      atMost: (n: number) => `Enter ${n} or less.`,
      tooShort: (n: number) => `Use at least ${n} characters.`,
      tooLong: (n: number) => `Use at most ${n} characters.`,
      atLeastItems: (n: number) => `At least ${n} items.`,
      tooMany: (n: number) => `At most ${n} items.`,
      choice: 'Choose one of the options offered.',
      date: 'Write the date as YYYY-MM-DD, e.g. 2026-12-31.',
      endBeforeStart: 'The end date cannot be before the start date.',
      amount: 'Write the amount like 350000, 350.000 or Rp 350.000,50: a dot separates thousands, a comma the cents.',
      amountAmbiguous:
        'An amount with a comma before three digits is unclear: write 350.000 or 350000 for three hundred and fifty thousand (a comma only before cents).',
      amountTooBig: 'The amount is too large: at most 12 digits before the cents and 2 after.',
      currency: 'Write a three-letter currency code, e.g. IDR.',
      creditScheme: 'Write the scheme in capital letters, digits or hyphens, starting with a letter, e.g. SKP.',
      url: 'Write a full address starting with https://.',
      code: 'Write the code, at most 64 characters.',
      sectionLine: (line: string) => `Line «${line}»: write it as «key: value».`,
      quiz: {
        oneRight: 'Write the number of exactly one right option, e.g. 2.',
        someRight: 'Write the numbers of at least one right option, e.g. 1,3.',
        twoOptions: 'Write at least two options, one per line.',
        trueFalseTwo: 'A true/false question has exactly two options, e.g. True and False.',
        noOptions: 'This kind of question has no options: leave the options box empty.',
        needAnswer: 'Write the right answer.',
        rightRange: (n: number) => `Write option numbers from 1 to ${n}.`,
        sameOptions: 'Each option must differ from the others.',
        roleTaken: (name: string) =>
          `The quiz «${name}» already has this role in the course: choose another role, or change that quiz first.`,
        finalNotPreTest: 'The final exam cannot be a pre-test.',
      },
    },
  };
}
