// The studio's words for the credit evidence of a course (evidence-fields.ts, accreditations.ts),
// in Bahasa Indonesia (the reference) and English: the `studio.evidence` block of ./messages.ts.

export function studioEvidenceMessagesId() {
  return {
    evaluationItemsLine: (line: number, message: string) => `Baris ${line}: ${message}`,
    evaluationItemsShape: 'tulis kunci | Bahasa Indonesia | English',
    evaluationItemsRepeated: 'kunci ini sudah dipakai di baris sebelumnya',
    accreditations: 'Akreditasi',
    onlyAdmin:
      'Hanya admin institusi kursus ini atau admin super yang mencatat akreditasi; nilai kredit kursus mengikuti akreditasi yang berlaku.',
    noAccreditation: 'Belum ada akreditasi: sertifikat kursus ini belum memberi kredit.',
    columns: { scheme: 'Skema', reference: 'Nomor SK / akreditasi', validity: 'Masa berlaku', value: 'Nilai', state: 'Status' },
    states: { pending: 'Belum berlaku', inForce: 'Berlaku', ended: 'Berakhir' },
    openEnded: 'tanpa batas',
    record: 'Catat akreditasi',
    validFrom: 'Berlaku mulai',
    validUntil: 'Berlaku sampai (kosong: tanpa batas)',
    professions: 'Profesi (pisahkan dengan koma)',
    recorded: 'Akreditasi dicatat.',
    refused: {
      reference: 'Tulis nomor SK atau akreditasi, 1 sampai 200 karakter.',
      date: 'Tulis tanggal yang valid, misalnya 2026-01-01.',
      untilBeforeFrom: 'Tanggal akhir harus setelah tanggal mulai.',
      professions: 'Paling banyak 20 profesi, masing-masing 1 sampai 100 karakter.',
      value: 'Tulis nilai lebih dari 0, paling banyak dua angka desimal (misalnya 2 atau 2,5).',
      unknownScheme: (scheme: string) => `Skema ${scheme} belum ada; operator menambahkannya dengan lms-admin.`,
      overSchemeMax: (max: string, unit: string, scheme: string) => `Paling banyak ${max} ${unit} per kursus dalam skema ${scheme}.`,
      overMinutes: (bound: string, unit: string, minutes: string, perUnit: string) =>
        `Paling banyak ${bound} ${unit}: bab kursus ini diperkirakan ${minutes} menit, dan 1 ${unit} = ${perUnit} menit.`,
      duplicate: (reference: string, scheme: string) => `Akreditasi ${reference} dalam skema ${scheme} sudah tercatat; ubah yang ada.`,
      creditsEarned: (n: string) => `${n} kredit sudah diperoleh dengan akreditasi ini: akhiri masa berlakunya, jangan dihapus.`,
    },
  };
}

export function studioEvidenceMessagesEn(): ReturnType<typeof studioEvidenceMessagesId> {
  return {
    evaluationItemsLine: (line: number, message: string) => `Line ${line}: ${message}`,
    evaluationItemsShape: 'write key | Bahasa Indonesia | English',
    evaluationItemsRepeated: 'this key is already used on an earlier line',
    accreditations: 'Accreditations',
    onlyAdmin:
      "Only an admin of this course's institution or a super admin records accreditations; the course's credit follows the accreditation in force.",
    noAccreditation: "No accreditation yet: this course's certificates earn no credit.",
    columns: { scheme: 'Scheme', reference: 'Decree / accreditation number', validity: 'Valid', value: 'Value', state: 'State' },
    states: { pending: 'Not yet in force', inForce: 'In force', ended: 'Ended' },
    openEnded: 'open-ended',
    record: 'Record an accreditation',
    validFrom: 'Valid from',
    validUntil: 'Valid until (blank: open-ended)',
    professions: 'Professions (comma-separated)',
    recorded: 'Accreditation recorded.',
    refused: {
      reference: 'Write the decree or accreditation number, 1 to 200 characters.',
      date: 'Write a valid date, e.g. 2026-01-01.',
      untilBeforeFrom: 'The end date must be after the start date.',
      professions: 'At most 20 professions, each 1 to 100 characters.',
      value: 'Write a value above 0 with at most two decimals (e.g. 2 or 2.5).',
      unknownScheme: (scheme: string) => `There is no scheme ${scheme} yet; an operator adds it with lms-admin.`,
      overSchemeMax: (max: string, unit: string, scheme: string) => `At most ${max} ${unit} per course in the ${scheme} scheme.`,
      overMinutes: (bound: string, unit: string, minutes: string, perUnit: string) =>
        `At most ${bound} ${unit}: this course's chapters are expected to take ${minutes} minutes, and 1 ${unit} = ${perUnit} minutes.`,
      duplicate: (reference: string, scheme: string) => `Accreditation ${reference} in ${scheme} is already recorded; change that one.`,
      creditsEarned: (n: string) => `${n} credits were earned under this accreditation: end it instead of deleting it.`,
    },
  };
}
