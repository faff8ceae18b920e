import { AUTHORING_ROUTES } from '@lms/contracts';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';

// Both apps document every authoring route with its error answers (the gateway's own test checks
// its document); here the LMS's.

t.test("the LMS's OpenAPI document lists every authoring route with every answer", async (t) => {
  const { app } = await buildTestApp(t);
  const doc = (await app.inject('/docs/json')).json();
  t.ok(doc.components.securitySchemes.partnerBearer, 'the partner bearer scheme is declared');
  for (const spec of AUTHORING_ROUTES) {
    const path = spec.url.replace(':id', '{id}');
    const operation = doc.paths[path]?.[spec.method.toLowerCase()];
    t.ok(operation, `${spec.method} ${path} is documented`);
    t.same(
      Object.keys(operation.responses).sort(),
      [String(spec.success.status), '400', '401', '403', '404', '409', '413', '415', '422', '429', '503'].sort(),
      `${spec.method} ${path}: every answer`,
    );
    t.same(operation.tags, ['authoring']);
    t.same(operation.security, [{ session: [] }, { partnerBearer: [] }]);
    if (spec.body) t.ok(operation.requestBody?.content['application/json'], `${spec.method} ${path}: its body`);
    if (spec.method !== 'GET') t.match(operation.description, /Body limit: \d+ bytes/);
  }
  t.match(doc.paths['/api/courses/{id}/publication'].post.responses['409'].content['application/json'].schema, {
    $ref: '#/components/schemas/PublishRefusedResponse',
  });
});
