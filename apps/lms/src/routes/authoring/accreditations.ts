import { AUTHORING_ERRORS, DocumentAccreditationOut, ErrorResponse, MAX_ID } from '@lms/contracts';
import { CREDIT_SCHEME } from '@lms/contracts/lists';
import type { Db } from '@lms/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AUTHOR_ROLES, type Author, findAuthoredCourse } from '../../domain/authoring/index.js';
import {
  type Accreditation,
  type AccreditationInput,
  courseAccreditationList,
  createAccreditation,
  deleteAccreditation,
  updateAccreditation,
  WHO_ACCREDITS,
} from '../../domain/evidence/accreditations.js';
import type { StoredResponse } from '../../domain/idempotency.js';
import { ForbiddenError } from '../../errors.js';
import { runKeyedRequest } from '../keyed-request.js';
import { authorOf } from './index.js';

// A course's accreditations (docs/authoring.md, "Accreditations"): read by whoever may author the
// course, written only by an admin of its institution or a super_admin (domain/evidence/accreditations.ts).

// The fields a course document exports of each accreditation, with the row's id, course and recorder.
const AccreditationOut = DocumentAccreditationOut.extend({
  id: z.number().int(),
  courseId: z.number().int(),
  recordedBy: z.string().nullable(),
});

const fields = {
  scheme: z.string().regex(CREDIT_SCHEME).meta({ description: 'A credit scheme code (lms-admin scheme list)' }),
  reference: z.string().min(1).max(200).meta({ description: "The body's decree or accreditation number" }),
  validFrom: z.string().max(40).meta({ description: 'ISO date or date-time: certificates issued from then earn credit' }),
  validUntil: z.string().max(40).nullable().meta({ description: 'ISO date or date-time (after validFrom), or null: open-ended' }),
  value: z.number().meta({
    description:
      "The credit in the scheme's unit: > 0, at most the scheme's maximum per course and its units of the course's expected minutes",
  }),
  professions: z.array(z.string().min(1).max(100)).max(20),
};
const CreateBody = z.strictObject({ ...fields, validUntil: fields.validUntil.optional(), professions: fields.professions.optional() });
const PatchBody = z.strictObject(fields).partial();
const pathId = () => z.coerce.number().int().min(1).max(MAX_ID);
const CourseParams = z.object({ id: pathId() });
const ItemParams = z.object({ id: pathId(), accreditationId: pathId() });

const WHO =
  "Read: whoever may author the course (its owner teacher, an admin of its institution, a super_admin, a partner bound to it). Write: only an admin of the course's institution or a super_admin, by session (with the `x-requested-with` header); the owner teacher and partners get a 403. ";

const out = (a: Accreditation) => ({
  ...a,
  validFrom: a.validFrom.toISOString(),
  validUntil: a.validUntil === null ? null : a.validUntil.toISOString(),
});

const errors = {
  ...AUTHORING_ERRORS,
  422: ErrorResponse.meta({
    description: 'An unknown scheme, or a value, reference, period or professions over their bounds (the message names the bound and why)',
  }),
};

const accreditationRoutes: FastifyPluginAsyncZod = async (app) => {
  const config = { auth: { accepts: ['session', 'partner-token'], roles: AUTHOR_ROLES }, authoringLimited: true } as const;
  const run = async (request: FastifyRequest, reply: FastifyReply, work: (author: Author, tx: Db) => Promise<StoredResponse>) => {
    const author = authorOf(request);
    // Who may write is settled before the work: a teacher or partner writes nothing here.
    if (request.method !== 'GET') {
      await findAuthoredCourse(app.db, author, { course: (request.params as { id: number }).id });
      if (author.kind !== 'session' || (author.role !== 'admin' && author.role !== 'super_admin')) throw new ForbiddenError(WHO_ACCREDITS);
    }
    const result = await runKeyedRequest(app, request, reply, {
      scope: author.kind === 'partner' ? author.issuer : `user:${author.userId}`,
      requestBody: { method: request.method, url: request.url, body: request.body ?? null },
      token: request.partnerToken,
      work: (tx) => work(author, tx),
    });
    if (request.method !== 'GET' && result.statusCode < 300 && !result.replayed) app.catalogChanged({ published: true });
    return reply.code(result.statusCode).send(result.body as never);
  };
  const security = [{ session: [] }, { partnerBearer: [] }] as { [scheme: string]: string[] }[];

  app.get(
    '/api/courses/:id/accreditations',
    {
      config,
      schema: {
        tags: ['authoring'],
        operationId: 'listAccreditations',
        summary: "A course's accreditations",
        description: WHO,
        security,
        params: CourseParams,
        response: { 200: z.object({ success: z.literal(true), accreditations: z.array(AccreditationOut) }), ...errors },
      },
    },
    (request, reply) =>
      run(request, reply, async (author, tx) => {
        await findAuthoredCourse(tx, author, { course: request.params.id });
        const list = await courseAccreditationList(tx, request.params.id);
        return { statusCode: 200, body: { success: true, accreditations: list.map(out) } };
      }),
  );
  app.post(
    '/api/courses/:id/accreditations',
    {
      config,
      schema: {
        tags: ['authoring'],
        operationId: 'createAccreditation',
        summary: 'Record an accreditation of a course',
        description: `${WHO}The course's shown nilaiKum becomes the accreditation in force with the largest value.`,
        security,
        params: CourseParams,
        body: CreateBody,
        response: { 201: z.object({ success: z.literal(true), accreditation: AccreditationOut }), ...errors },
      },
    },
    (request, reply) =>
      run(request, reply, async (author, tx) => {
        const b = request.body;
        const input: AccreditationInput = { ...b, validUntil: b.validUntil ?? null, professions: b.professions ?? [] };
        return {
          statusCode: 201,
          body: { success: true, accreditation: out(await createAccreditation(tx, author, request.params.id, input, app.clock())) },
        };
      }),
  );
  app.patch(
    '/api/courses/:id/accreditations/:accreditationId',
    {
      config,
      schema: {
        tags: ['authoring'],
        operationId: 'updateAccreditation',
        summary: 'Change an accreditation (e.g. end it with validUntil)',
        description: WHO,
        security,
        params: ItemParams,
        body: PatchBody,
        response: { 200: z.object({ success: z.literal(true), accreditation: AccreditationOut }), ...errors },
      },
    },
    (request, reply) =>
      run(request, reply, async (author, tx) => {
        const a = await updateAccreditation(tx, author, request.params.id, request.params.accreditationId, request.body, app.clock());
        return { statusCode: 200, body: { success: true, accreditation: out(a) } };
      }),
  );
  app.delete(
    '/api/courses/:id/accreditations/:accreditationId',
    {
      config,
      schema: {
        tags: ['authoring'],
        operationId: 'deleteAccreditation',
        summary: 'Delete an accreditation recorded by mistake (409 once credit was earned under it)',
        description: WHO,
        security,
        params: ItemParams,
        response: { 200: z.object({ success: z.literal(true), deleted: z.object({ id: z.number().int() }) }), ...errors },
      },
    },
    (request, reply) =>
      run(request, reply, async (author, tx) => {
        const deleted = await deleteAccreditation(tx, author, request.params.id, request.params.accreditationId, app.clock());
        return { statusCode: 200, body: { success: true, deleted } };
      }),
  );
};

export default accreditationRoutes;
