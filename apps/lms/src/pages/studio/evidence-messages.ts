// The studio's words for the credit evidence of a course (evidence-fields.ts, accreditations.ts),
// in Bahasa Indonesia (the reference) and English: the `studio.evidence` block of ./messages.ts.

export function studioEvidenceMessagesId() {
  return {
    evaluationItemsLine: (line: number, message: string) => `Baris ${line}: ${message}`,
    evaluationItemsShape: 'tulis kunci | Bahasa Indonesia | English',
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
  };
}

export function studioEvidenceMessagesEn(): ReturnType<typeof studioEvidenceMessagesId> {
  return {
    evaluationItemsLine: (line: number, message: string) => `Line ${line}: ${message}`,
    evaluationItemsShape: 'write key | Bahasa Indonesia | English',
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
  };
}
