import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PARTNER_EVENT_TYPES } from '@lms/contracts';
import openapiTS, { astToString } from 'openapi-typescript';
import t from 'tap';
import ts from 'typescript';
import { startGateway, startLms } from './helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): it reads the OpenAPI documents, which no database changes.

// Both OpenAPI documents generate a client a partner can use as it is (issue 41): the types
// openapi-typescript writes from them are type-checked with a program that calls the routes the
// way a client does: numbers as numbers, booleans as booleans, a search as a string, and the body
// of every partner event from the LMS's `webhooks`.

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Operation = { operationId?: string };
type PathItems = Record<string, Record<string, Operation>>;

/** `METHOD path` of every operation without an operationId, and every operationId used twice. */
function operationIdProblems(doc: { paths: PathItems; webhooks?: PathItems }): { missing: string[]; twice: string[] } {
  const seen = new Map<string, number>();
  const missing: string[] = [];
  for (const items of [doc.paths, doc.webhooks ?? {}]) {
    for (const [where, item] of Object.entries(items)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        if (!op.operationId) missing.push(`${method.toUpperCase()} ${where}`);
        else seen.set(op.operationId, (seen.get(op.operationId) ?? 0) + 1);
      }
    }
  }
  return { missing, twice: [...seen].filter(([, n]) => n > 1).map(([id]) => id) };
}

/** The compiler's complaints about `files` (strict), as text. */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const file = d.file ? path.basename(d.file.fileName) : '';
    return `${file}:${where ? where.line + 1 : '?'} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

// What a client written against the generated types does. Each line fails to compile when the
// document types a parameter as its text (`limit: "3"`) or a body loosely.
const CLIENT = `
import type { paths as Lms, webhooks } from './lms.js';
import type { paths as Gateway } from './gateway.js';

type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type Path<Op> = Op extends { parameters: { path: infer P } } ? P : never;
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const list: Query<Lms['/api/courses']['get']> = { page: 1, limit: 3, public: true, search: 'etika profesi', sortBy: 'name' };
const uncategorized: Query<Lms['/api/courses']['get']> = { categoryId: 'uncategorized', courseId: 12 };
const byCategory: Query<Lms['/api/courses']['get']> = { categoryId: 4 };
const searchIsText: Exactly<Query<Lms['/api/courses']['get']>['search'], string | undefined> = true;
const pageIsNumber: Exactly<Query<Lms['/api/courses']['get']>['page'], number | undefined> = true;
const publicIsBoolean: Exactly<Query<Lms['/api/courses']['get']>['public'], boolean | undefined> = true;
const detail: Path<Lms['/api/courses/{id}']['get']> = { id: 7 };
const bundles: Query<Lms['/api/recommended-courses']['get']> = { public: false, categoryId: 4 };
const lmsCredits: Query<Lms['/api/partner/credits']['get']> = { page: 1, limit: 3, membershipId: 'A-0001' };
const pending: Query<Lms['/api/learning/purchases/pending']['get']> = { page: 2, limit: 20, reference: 'TRX-1' };

const teachers: Query<Gateway['/api/partner/teachers']['get']> = { institutionId: 1, page: 1, limit: 3 };
const credits: Query<Gateway['/api/partner/credits']['get']> = { page: 1, limit: 50 };
const history: Query<Gateway['/api/courses/{id}/history']['get']> = { limit: 10 };

type EventBody<T extends keyof webhooks> = webhooks[T] extends { post: { requestBody: { content: { 'application/json': infer B } } } }
  ? B
  : never;
const enrolled: EventBody<'enrollment.created'>['data']['enrolledAt'] = '2026-03-01T08:00:00.000Z';
const issued: EventBody<'certificate.issued'>['data']['certificate']['verificationUrl'] = 'https://lms.example/certificates/x';
const refunded: EventBody<'purchase.refunded'>['data']['purchase']['unenrolledCourseIds'] = [1, 2];
const kind: EventBody<'purchase.unconfirmed'>['type'] = 'purchase.unconfirmed';

export const used = [list, uncategorized, byCategory, searchIsText, pageIsNumber, publicIsBoolean, detail, bundles, lmsCredits, pending,
  teachers, credits, history, enrolled, issued, refunded, kind];
`;

t.test('both OpenAPI documents generate a client that takes numbers, booleans and text as a client sends them', async (t) => {
  const lms = await startLms(t);
  const gateway = await startGateway(t, []);
  const lmsDoc = (await lms.app.inject('/docs/json')).json();
  const gatewayDoc = (await gateway.inject('/docs/json')).json();

  for (const [name, doc] of [
    ['LMS', lmsDoc],
    ['gateway', gatewayDoc],
  ] as const) {
    const { missing, twice } = operationIdProblems(doc);
    t.same(missing, [], `${name}: every operation has an operationId`);
    t.same(twice, [], `${name}: no operationId is used twice`);
  }
  t.same(
    Object.keys(lmsDoc.webhooks ?? {}).sort(),
    [...PARTNER_EVENT_TYPES].sort(),
    'the LMS publishes one webhook per partner event type',
  );
  for (const type of PARTNER_EVENT_TYPES) {
    const schema = lmsDoc.webhooks?.[type]?.post?.requestBody?.content?.['application/json']?.schema;
    t.ok(schema?.$ref && lmsDoc.components.schemas[schema.$ref.split('/').pop()], `${type}: its body is a component`);
  }

  const dir = await mkdtemp(path.join(tmpdir(), 'openapi-clients-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const lmsTypes = astToString(await openapiTS(lmsDoc));
  const gatewayTypes = astToString(await openapiTS(gatewayDoc));
  for (const [name, types] of [
    ['LMS', lmsTypes],
    ['gateway', gatewayTypes],
  ] as const) {
    t.notMatch(types, /unknown &|& unknown/, `${name}: no parameter or field the generator could not read`);
  }
  await writeFile(path.join(dir, 'lms.ts'), lmsTypes);
  await writeFile(path.join(dir, 'gateway.ts'), gatewayTypes);
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const client = path.join(dir, 'client.ts');
  await writeFile(client, CLIENT);
  t.same(typeErrors([client]), [], 'the client type-checks against both generated documents');
});
