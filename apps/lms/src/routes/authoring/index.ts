import {
  AUTHORING_ERRORS,
  AUTHORING_ROUTES,
  type AuthoringRouteSpec,
  type CourseDocument,
  type CoursePatchBody,
  idNumber,
  MAX_ID,
  type OutlineBody,
  type QuestionBankBody,
  type QuestionImportBody,
  type QuizInput,
  text,
} from '@lms/contracts';
import type { Db } from '@lms/db';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AUTHOR_ROLES,
  AUTHORING_OPERATIONS as op,
  assertMayCreateFor,
  type Author,
  type AuthoringContext,
  type AuthoringOperation,
  type AuthoringTarget,
  type CourseRow,
  courseFieldsOf,
  documentTag,
  findAuthoredCourse,
  ImportRefusedError,
  StaleDocumentError,
  StaleVersionError,
} from '../../domain/authoring/index.js';
import type { StoredResponse } from '../../domain/idempotency.js';
import { BadRequestError, errorBody, ForbiddenError } from '../../errors.js';
import { runKeyedRequest } from '../keyed-request.js';

type Params = { id: number };
type Handler = (tx: Db, ctx: AuthoringContext, request: FastifyRequest) => Promise<StoredResponse>;

const ok = (body: Record<string, unknown>, statusCode = 200): StoredResponse => ({ statusCode, body: { success: true, ...body } });
const idOf = (request: FastifyRequest) => (request.params as Params).id;

const documentAnswer = (r: Awaited<ReturnType<typeof op.exportCourse>>) => ({
  courseId: r.course.id,
  isPublished: r.course.is_published,
  version: r.course.version,
  document: r.document,
  ...('ignored' in r && r.ignored ? { ignored: r.ignored } : {}),
});

/**
 * The version an `If-Match` header asks a write to be made over: `*` or no header is no check;
 * `"<n>"` (or `W/"<n>"`) a version number, or for the document routes the document's digest.
 * Anything else, or an `If-Match` on a route that has no version, is a 400.
 */
export function ifMatchOf(request: FastifyRequest, versioned: AuthoringRouteSpec['versioned']): number | string | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const value = (Array.isArray(header) ? header.join(',') : header).trim();
  if (value === '*') return undefined;
  if (versioned === undefined) throw new BadRequestError('This route has no version: send no If-Match');
  const tag = /^(?:W\/)?"([^"]{1,128})"$/.exec(value)?.[1];
  if (tag === undefined) throw new BadRequestError('If-Match must be one ETag, e.g. If-Match: "3" (the version, quoted)');
  if (versioned === 'document') return tag;
  if (!/^\d{1,9}$/.test(tag)) throw new BadRequestError(`If-Match must carry a version number here, e.g. If-Match: "3"; got ${value}`);
  return Number(tag);
}

const versionOf = (r: FastifyRequest) => r.ifMatch as number | undefined;

/** What each route of AUTHORING_ROUTES does, by its operation name: one authoring operation (domain/authoring). */
const HANDLERS: Record<string, Handler> = {
  importCourse: async (tx, ctx, r) => ok(documentAnswer(await op.importCourse(tx, ctx, r.body as CourseDocument)), 201),
  exportCourse: async (tx, ctx, r) => ok(documentAnswer(await op.exportCourse(tx, ctx, idOf(r)))),
  replaceCourse: async (tx, ctx, r) =>
    ok(documentAnswer(await op.replaceCourse(tx, ctx, idOf(r), r.body as CourseDocument, r.ifMatch as string | undefined))),
  updateCourse: async (tx, ctx, r) => {
    const course = await op.updateCourse(tx, ctx, idOf(r), r.body as CoursePatchBody, versionOf(r));
    return ok({ courseId: course.id, isPublished: course.is_published, version: course.version, course: courseFieldsOf(course) });
  },
  createModule: async (tx, ctx, r) =>
    ok({ module: await op.createModule(tx, ctx, idOf(r), r.body as { name: string; description: string }) }, 201),
  updateModule: async (tx, ctx, r) =>
    ok({ module: await op.updateModule(tx, ctx, idOf(r), r.body as { name?: string; description?: string }) }),
  deleteModule: async (tx, ctx, r) => ok({ deleted: await op.deleteModule(tx, ctx, idOf(r)) }),
  createChapter: async (tx, ctx, r) =>
    ok(
      { chapter: await op.createChapter(tx, ctx, idOf(r), r.body as { name: string; content: string; expectedMinutes: number | null }) },
      201,
    ),
  updateChapter: async (tx, ctx, r) =>
    ok({
      chapter: await op.updateChapter(
        tx,
        ctx,
        idOf(r),
        r.body as { name?: string; content?: string; expectedMinutes?: number | null },
        versionOf(r),
      ),
    }),
  deleteChapter: async (tx, ctx, r) => ok({ deleted: await op.deleteChapter(tx, ctx, idOf(r)) }),
  reorderOutline: async (tx, ctx, r) => ok(await op.reorderOutline(tx, ctx, idOf(r), r.body as OutlineBody)),
  putChapterQuiz: async (tx, ctx, r) => ok(await op.putChapterQuiz(tx, ctx, idOf(r), r.body as QuizInput, versionOf(r))),
  deleteChapterQuiz: async (tx, ctx, r) => ok({ deleted: await op.deleteChapterQuiz(tx, ctx, idOf(r)) }),
  putModuleQuiz: async (tx, ctx, r) => ok(await op.putModuleQuiz(tx, ctx, idOf(r), r.body as QuizInput, versionOf(r))),
  deleteModuleQuiz: async (tx, ctx, r) => ok({ deleted: await op.deleteModuleQuiz(tx, ctx, idOf(r)) }),
  putFinalExam: async (tx, ctx, r) => ok(await op.putFinalExam(tx, ctx, idOf(r), r.body as QuizInput, versionOf(r))),
  deleteFinalExam: async (tx, ctx, r) => ok({ deleted: await op.deleteFinalExam(tx, ctx, idOf(r)) }),
  publicationChecklist: async (tx, ctx, r) => {
    const { course, checklist } = await op.publicationChecklist(tx, ctx, idOf(r));
    return ok({ courseId: course.id, isPublished: course.is_published, checklist });
  },
  publishCourse: async (tx, ctx, r) => {
    const { course, checklist, published } = await op.publishCourse(tx, ctx, idOf(r));
    if (!published) {
      const failing = checklist.filter((item) => !item.ok).map((item) => `${item.rule}: ${item.message}`);
      return { statusCode: 409, body: { success: false, error: `The course cannot be published yet: ${failing.join('; ')}`, checklist } };
    }
    return ok({ courseId: course.id, isPublished: true, checklist });
  },
  unpublishCourse: async (tx, ctx, r) => {
    const { course, checklist } = await op.unpublishCourse(tx, ctx, idOf(r));
    return ok({ courseId: course.id, isPublished: false, checklist });
  },
  courseHistory: async (tx, ctx, r) => {
    const page = await op.courseHistory(tx, ctx, idOf(r), r.query as { before?: number; limit: number });
    return ok({ courseId: idOf(r), ...page });
  },
  questionBank: async (tx, ctx, r) => ok(await op.questionBank(tx, ctx, idOf(r))),
  replaceQuestionBank: async (tx, ctx, r) => ok(await op.replaceQuestionBank(tx, ctx, idOf(r), r.body as QuestionBankBody)),
  importQuestions: async (tx, ctx, r) => {
    try {
      return ok(await op.importQuestions(tx, ctx, idOf(r), r.body as QuestionImportBody), 201);
    } catch (err) {
      // Every problem of the text, with its line and code (the 400's `problems`), beside the usual `details`.
      if (err instanceof ImportRefusedError) {
        return { statusCode: 400, body: { ...errorBody(err), problems: err.problems.slice(0, 50) } };
      }
      throw err;
    }
  },
} satisfies Record<AuthoringOperation, Handler>;

const WHO =
  "Who: the owner teacher, an admin of the course's institution or a super_admin, by session (with the `x-requested-with` " +
  'header on writes, the CSRF rule); or a partner bound to the institution, through the gateway, with ' +
  '`Authorization: Bearer <JWT>` (a course-creation token: a fresh `jti` each request, a retry too) and an optional ' +
  '`Idempotency-Key` (1-255 visible ASCII characters; the same key with the same request within 24 h replays the ' +
  'first answer with `Idempotency-Replayed: true`, another request with it is a 422; success, 400 and 422 answers ' +
  'are kept, any other frees the key; the work, the token and the answer commit together). An API key, and a session ' +
  'of any other role, is a 403 before the body is read; so is one that may not author the course the path names (404 for a draft). ' +
  'A 400 names at most 20 problems of the body. Each person, and each partner, may make AUTHORING_RATE_LIMIT_PER_MINUTE ' +
  'authoring requests in any sliding minute (429 with `Retry-After` past it). ' +
  "Every write is recorded in the course's history. ";

/** Who is writing: the partner whose token the gateway forwarded, or the session's person. */
export function authorOf(request: FastifyRequest): Author {
  const token = request.partnerToken;
  if (token) return { kind: 'partner', issuer: token.issuer, subject: token.subject, tokenId: token.jti };
  const caller = request.caller;
  if (caller?.kind !== 'session') throw new ForbiddenError('Authoring takes a signed-in session or a partner token, not an API key');
  return { kind: 'session', userId: caller.userId, role: caller.role };
}

/** What a route's `:id` names, from its URL: a course, a module or a chapter; null for an import. */
function targetOf(url: string): 'course' | 'module' | 'chapter' | null {
  const kind = /^\/api\/(courses|modules|chapters)\/:id(?:\/|$)/.exec(url)?.[1];
  return kind === 'courses' ? 'course' : kind === 'modules' ? 'module' : kind === 'chapters' ? 'chapter' : null;
}

/** The `:id` of the path when it is a valid id (otherwise validation answers the 400), else null. */
function pathId(request: FastifyRequest): number | null {
  const raw = (request.params as { id?: unknown }).id;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw)) return null;
  const id = Number(raw);
  return id <= MAX_ID ? id : null;
}

/** The owner an import names, when it names one well (otherwise validation answers the 400). */
const ImportOwner = z.object({ course: z.object({ institutionId: idNumber(), teacherId: text().min(1).max(64) }) });

/**
 * The authoring API: every route of AUTHORING_ROUTES (packages/contracts), each calling one
 * function of domain/authoring in one transaction with the partner's token spent in it (a token
 * works once) and, with an Idempotency-Key, the key's claim and answer too.
 *
 * Who may write is settled before the body is read (docs/architecture.md, "Bounded validation"):
 * the role of a session in onRequest (AUTHOR_ROLES: a student's 4 MB is refused unread); then, on
 * a route whose path names a course, module or chapter, the author's right on that course
 * (preParsing: the same findAuthoredCourse the write repeats under its lock); an import's right
 * on the institution it names once the JSON is parsed, before it is validated. Each person and
 * each partner has an authoring budget per minute (plugins/rate-limit.ts).
 *
 * A committed write to a published course (or the publication itself) makes this instance
 * refresh its shared catalog answers; a draft is in no API-key answer, so its writes do not.
 */
const authoringRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const spec of AUTHORING_ROUTES) {
    const handler = HANDLERS[spec.operation];
    if (!handler) throw new Error(`no handler for the authoring operation ${spec.operation}`);
    const writes = spec.method !== 'GET';
    const target = targetOf(spec.url);
    app.route({
      method: spec.method,
      url: spec.url,
      config: { auth: { accepts: ['session', 'partner-token'], roles: AUTHOR_ROLES }, authoringLimited: true },
      bodyLimit: writes ? app.config.AUTHORING_BODY_LIMIT_BYTES : undefined,
      schema: routeSchema(spec, WHO, app.config.AUTHORING_BODY_LIMIT_BYTES),
      // Before the body is read: may this author write the course the path names? (404/403)
      preParsing:
        writes && target
          ? async (request, _reply, payload) => {
              const id = pathId(request);
              if (id !== null) {
                request.authoredCourse = await findAuthoredCourse(app.db, authorOf(request), { [target]: id } as AuthoringTarget);
              }
              return payload;
            }
          : undefined,
      // An import: may this author create courses for the institution and owner it names? Before
      // the document is validated (and again in the write's transaction).
      preValidation:
        target === null && writes
          ? async (request) => {
              const owner = ImportOwner.safeParse(request.body);
              if (owner.success) {
                const { institutionId, teacherId } = owner.data.course;
                await assertMayCreateFor(app.db, authorOf(request), institutionId, teacherId);
              }
            }
          : undefined,
      handler: async (request, reply) => {
        const author = authorOf(request);
        request.ifMatch = ifMatchOf(request, spec.versioned);
        const ctx: AuthoringContext = { author, now: app.clock(), requestId: request.id };
        const token = request.partnerToken;
        const result = await runKeyedRequest(app, request, reply, {
          scope: author.kind === 'partner' ? author.issuer : `user:${author.userId}`,
          requestBody: {
            method: spec.method,
            url: request.url,
            body: request.body ?? null,
            // The same key with another If-Match is another request (a 422), not a replay.
            ...(request.ifMatch === undefined ? {} : { ifMatch: request.ifMatch }),
          },
          token,
          work: async (tx) => {
            try {
              return await handler(tx, ctx, request);
            } catch (err) {
              // A stale If-Match: the 409 names the current ETag (in its body, kept with an Idempotency-Key, and its header).
              if (err instanceof StaleVersionError || err instanceof StaleDocumentError) {
                return { statusCode: 409, body: { success: false, error: err.message, etag: err.etag } };
              }
              throw err;
            }
          },
        });
        if (writes && result.statusCode < 300 && !result.replayed) {
          const published = request.authoredCourse?.is_published === true || spec.operation === 'publishCourse';
          app.catalogChanged({ published });
        }
        const etag = result.statusCode < 300 || result.statusCode === 409 ? etagOf(result.body) : undefined;
        if (etag !== undefined) reply.header('etag', etag);
        return reply.code(result.statusCode).send(result.body as never);
      },
    });
  }
};

/** The `ETag` of an answer: the document's digest, or the version of what was read or written. */
function etagOf(body: unknown): string | undefined {
  const b = body as { document?: unknown; version?: unknown; chapter?: { version?: unknown }; etag?: unknown };
  if (typeof b.etag === 'string') return b.etag;
  if (b.document !== undefined) return `"${documentTag(b.document)}"`;
  const version = b.version ?? b.chapter?.version;
  return typeof version === 'number' ? `"${version}"` : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authoring route's `If-Match` (ifMatchOf): a version, a document digest, or none. */
    ifMatch?: number | string;
    /** The course the path names, as it was before the write, once the author's right on it is checked (preParsing). */
    authoredCourse?: CourseRow;
  }
}

/** A route's OpenAPI schema from its spec: parameters, body, its answer and every error answer. */
export function routeSchema(spec: AuthoringRouteSpec, who: string, bodyLimitBytes: number) {
  return {
    tags: ['authoring'],
    operationId: spec.operation,
    summary: spec.summary,
    description: `${who}${spec.description}${spec.method === 'GET' ? '' : ` Body limit: ${bodyLimitBytes} bytes (413 above it).`}`,
    security: [{ session: [] }, { partnerBearer: [] }] as { [scheme: string]: string[] }[],
    headers: z.object({
      authorization: z
        .string()
        .optional()
        .meta({ description: "Bearer <the partner's course-creation JWT> (partners, through the gateway)" }),
      'idempotency-key': z.string().optional(),
      ...(spec.versioned
        ? { 'if-match': z.string().optional().meta({ description: 'The ETag to save over (see the description); none: last save wins' }) }
        : {}),
    }),
    ...(spec.params ? { params: spec.params } : {}),
    ...(spec.querystring ? { querystring: spec.querystring } : {}),
    ...(spec.body ? { body: spec.body } : {}),
    response: { [spec.success.status]: spec.success.schema, ...AUTHORING_ERRORS, ...spec.extra },
  };
}

export default authoringRoutes;
