// Publishes a course from a JSON file through the gateway:
//   node src/publish-course.js --file course.example.json --institution 1 --teacher <teacher id>
// Lists the institutions bound to this partner and their teachers (the ids above):
//   node src/publish-course.js --list-teachers [--institution 1]
// (or: pnpm --filter @lms/example-partner-backend publish-course -- --file ... ). Uses the same
// signing key as the server (DATA_DIR), the same ISSUER and GATEWAY_URL.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { listTeachers, publishCourseFromDocument } from './course-sync.js';
import { loadOrCreateSigningKey } from './partner-backend.js';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    institution: { type: 'string' },
    teacher: { type: 'string' },
    'list-teachers': { type: 'boolean' },
  },
});
if (!values['list-teachers'] && (!values.file || !values.institution || !values.teacher)) {
  console.error('usage: publish-course --file <course.json> --institution <id> --teacher <teacher id>');
  console.error('       publish-course --list-teachers [--institution <id>]');
  process.exit(2);
}
const issuer = process.env.ISSUER ?? 'demo-partner.local';
const gatewayUrl = process.env.GATEWAY_URL ?? 'http://localhost:3001';
const dataDir = process.env.DATA_DIR ?? fileURLToPath(new URL('../.data/', import.meta.url));
const key = await loadOrCreateSigningKey(dataDir);
if (values['list-teachers']) {
  try {
    const institutionId = values.institution === undefined ? undefined : Number(values.institution);
    const { institutions, teachers } = await listTeachers({ key, issuer, gatewayUrl, institutionId });
    for (const institution of institutions) {
      console.log(`institution ${institution.id}  ${institution.name}`);
      for (const teacher of teachers.filter((x) => x.institutionId === institution.id)) {
        console.log(`  teacher ${teacher.id}  ${teacher.name} <${teacher.email}>`);
      }
    }
    if (institutions.length === 0) console.log('no institution is bound to this partner: ask the operator (lms-admin partner bind)');
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
  process.exit(0);
}
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
