// Publishes a course from a JSON file through the gateway:
//   node src/publish-course.js --file course.example.json --institution 1 --teacher <teacher id>
// (or: pnpm --filter @lms/example-partner-backend publish-course -- --file ... ). Uses the same
// signing key as the server (DATA_DIR), the same ISSUER and GATEWAY_URL.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { publishCourseFromDocument } from './course-sync.js';
import { loadOrCreateSigningKey } from './partner-backend.js';

const { values } = parseArgs({
  options: { file: { type: 'string' }, institution: { type: 'string' }, teacher: { type: 'string' } },
});
if (!values.file || !values.institution || !values.teacher) {
  console.error('usage: publish-course --file <course.json> --institution <id> --teacher <teacher id>');
  process.exit(2);
}
const issuer = process.env.ISSUER ?? 'demo-partner.local';
const gatewayUrl = process.env.GATEWAY_URL ?? 'http://localhost:3001';
const dataDir = process.env.DATA_DIR ?? fileURLToPath(new URL('../.data/', import.meta.url));
const key = await loadOrCreateSigningKey(dataDir);
try {
  const document = JSON.parse(await readFile(values.file, 'utf8'));
  const { courseId } = await publishCourseFromDocument({
    key,
    issuer,
    gatewayUrl,
    institutionId: Number(values.institution),
    teacherId: values.teacher,
    document,
  });
  console.log(courseId);
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
