// Publishing a course from the partner's own repository: create it through the gateway, fill it
// from a course document (JSON), publish it. Every call is a partner call: from this server (its
// IP is checked), `Authorization: Bearer <a fresh course-creation token>` and an Idempotency-Key,
// so a run that fails half-way can simply be run again (each step replays or completes, once).
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';

const AUDIENCE = 'terang.ai';

/**
 * A course-creation token: signed like an SSO token, but `sub` names the calling system and there
 * is no `email` nor `membershipId` (a token with them is a sign-in token, refused here). Each one
 * works once: sign one per call.
 */
export async function signCourseToken(key, issuer, subject = 'course-sync') {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setSubject(subject)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .setJti(randomUUID())
    .sign(key.privateKey);
}

/** One call to the gateway's API: the answer's status and JSON. */
async function callGateway(key, issuer, gatewayUrl, method, path, body, idempotencyKey) {
  const headers = { authorization: `Bearer ${await signCourseToken(key, issuer)}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(new URL(path, gatewayUrl), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = { error: text };
  }
  return { status: res.status, body: json };
}

/** Stops with the LMS's own words when a step is refused. */
function expect(step, answer, ...statuses) {
  if (statuses.includes(answer.status)) return answer.body;
  const checklist = answer.body.checklist?.filter((i) => !i.ok).map((i) => `\n  - ${i.rule}: ${i.message}`) ?? [];
  throw new Error(`${step}: HTTP ${answer.status}: ${answer.body.error ?? JSON.stringify(answer.body)}${checklist.join('')}`);
}

/**
 * Creates a course for `institutionId` owned by `teacherId`, fills it with `document` (the LMS's
 * course document: `format`, `course`, `modules`, `finalExam`; the owner is set from the
 * arguments) and publishes it. Returns the course id and whether it is published. Idempotency keys
 * are derived from the document, so running it again with the same file within 24 h changes
 * nothing and answers the same course.
 */
export async function publishCourseFromDocument({ key, issuer, gatewayUrl, institutionId, teacherId, document, log = console }) {
  const doc = { ...document, course: { ...document.course, institutionId, teacherId } };
  const run = createHash('sha256').update(JSON.stringify(doc)).digest('hex').slice(0, 32);
  const call = (method, path, body, step) => callGateway(key, issuer, gatewayUrl, method, path, body, `${run}-${step}`);

  const created = expect('create', await call('POST', '/api/courses', { institutionId, teacherId, name: doc.course.name }, 'create'), 201);
  const courseId = created.course.id;
  log.info?.(`course ${courseId} created (a draft)`);
  const filled = expect('fill', await call('PUT', `/api/courses/${courseId}/document`, doc, 'fill'), 200);
  const chapters = filled.document.modules.reduce((n, m) => n + m.chapters.length, 0);
  log.info?.(`course ${courseId} filled: ${filled.document.modules.length} module(s), ${chapters} chapter(s)`);
  const published = expect('publish', await call('POST', `/api/courses/${courseId}/publication`, undefined, 'publish'), 200);
  log.info?.(`course ${courseId} published`);
  return { courseId, isPublished: published.isPublished, document: filled.document };
}

/**
 * The institutions the operator bound to this partner and their active teachers, every page:
 * `GET /api/partner/teachers` through the gateway (a fresh course-creation token per page). The
 * `id` of a teacher is the `teacherId` of a course; an institution's `id` its `institutionId`.
 */
export async function listTeachers({ key, issuer, gatewayUrl, institutionId }) {
  const teachers = [];
  let institutions = [];
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ page: String(page), limit: '100' });
    if (institutionId !== undefined) query.set('institutionId', String(institutionId));
    const body = expect('list teachers', await callGateway(key, issuer, gatewayUrl, 'GET', `/api/partner/teachers?${query}`), 200);
    institutions = body.institutions;
    teachers.push(...body.teachers);
    if (page >= body.pagination.totalPages) return { institutions, teachers };
  }
}
