import type { CertificateEvidence } from '@lms/db';

// A certificate's evidence (certificates.evidence, DESIGN 5g) as Open Badges 3.0 carries it: the
// credential's `evidence` (one Evidence per accreditation credited, and one for the measured
// time), the AchievementSubject's `result` (OB 3.0 names the property `result`, an array of
// Result) and, in the achievement, the `resultDescription` each result points to (its id is the
// achievement's id with a fragment). Only what was taken is written: the JSON serialization has
// no nulls and no empty arrays.

/** The result descriptions an evidence can name, by fragment. */
const DESCRIPTIONS = {
  'pre-test': { name: 'Pre-test score', resultType: 'Percent' },
  'post-test': { name: 'Post-test score', resultType: 'Percent' },
  minutes: { name: 'Active minutes on the course', resultType: 'ext:Minutes' },
} as const;
type Described = keyof typeof DESCRIPTIONS;

const score = (n: number) => String(Math.round(n * 100) / 100);

function taken(e: CertificateEvidence): [Described, string][] {
  const out: [Described, string][] = [];
  if (e.preTestScore !== null) out.push(['pre-test', score(e.preTestScore)]);
  if (e.postTestScore !== null) out.push(['post-test', score(e.postTestScore)]);
  out.push(['minutes', String(Math.round(e.minutes))]);
  return out;
}

/** Achievement.resultDescription: what each result means (Percent 0-100, or minutes). */
export function resultDescriptionsOf(e: CertificateEvidence, achievementId: string) {
  return taken(e).map(([key]) => ({
    id: `${achievementId}#${key}`,
    type: ['ResultDescription'],
    name: DESCRIPTIONS[key].name,
    resultType: DESCRIPTIONS[key].resultType,
    ...(key === 'minutes' ? { valueMin: '0' } : { valueMin: '0', valueMax: '100' }),
  }));
}

/** AchievementSubject.result: the learner's pre-test, post-test and minutes. */
export function resultsOf(e: CertificateEvidence, achievementId: string) {
  return taken(e).map(([key, value]) => ({ type: ['Result'], resultDescription: `${achievementId}#${key}`, value }));
}

/** The units an accreditation credits, as written: "2 SKP". */
const creditText = (a: CertificateEvidence['accreditations'][number]) => `${a.value} ${a.unit}`;

/** The credential's `evidence`: each accreditation credited (reference, value, period) and the time measured. */
export function evidenceOf(e: CertificateEvidence, certificateUrl: string) {
  const minutes = Math.round(e.minutes);
  const scores = [
    e.preTestScore !== null ? `pre-test ${score(e.preTestScore)}` : null,
    e.postTestScore !== null ? `post-test ${score(e.postTestScore)}` : null,
  ].filter((s): s is string => s !== null);
  const measured = `${minutes} active minutes of ${Math.round(e.expectedMinutes)} expected`;
  const accreditations = e.accreditations.map((a) => ({
    id: `${certificateUrl}#accreditation-${encodeURIComponent(a.scheme)}`,
    type: ['Evidence'],
    name: `${a.scheme} accreditation ${a.reference}`,
    description: `Accredited for ${creditText(a)} (${a.scheme}), valid from ${a.validFrom.slice(0, 10)}${a.validUntil ? ` until ${a.validUntil.slice(0, 10)}` : ''}.`,
    narrative: [
      `Accreditation reference: ${a.reference}.`,
      `Credit: ${creditText(a)}.`,
      `${measured}.`,
      ...(scores.length > 0 ? [`Scores: ${scores.join(', ')}.`] : []),
      ...(e.evaluationDone ? ['Evaluation form completed.'] : []),
    ].join(' '),
    genre: 'Accreditation',
  }));
  const time = {
    id: `${certificateUrl}#time`,
    type: ['Evidence'],
    name: 'Time on the course',
    description: `${measured}, measured by the server.`,
    narrative: `${measured}${scores.length > 0 ? `; ${scores.join(', ')}` : ''}${e.evaluationDone ? '; evaluation form completed' : ''}.`,
    genre: 'Measured time',
  };
  return [...accreditations, time];
}
