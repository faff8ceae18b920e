import t from 'tap';
import { onlyGroups, readOptions, SCENARIO_GROUPS } from '../src/options.js';

t.test('--only: the named scenario groups; without it, every group', async (t) => {
  t.equal(readOptions([]).only, null, 'no --only: all groups run');
  t.same(readOptions(['--', '--only', 'chapter-time,participant-export']).only, ['chapter-time', 'participant-export']);
  t.same(readOptions(['--quick', '--only', ' catalog , ']).only, ['catalog'], 'spaces and empty names ignored');
  t.same(onlyGroups(SCENARIO_GROUPS.join(',')), [...SCENARIO_GROUPS]);
});

t.test('--only: an unknown or empty list is an error naming the groups, not an empty run', async (t) => {
  t.throws(() => readOptions(['--only', 'chapter-time,catalogue']), /unknown scenario group "catalogue".*participant-export/);
  t.throws(() => onlyGroups(','), /one or more of catalog, own-sql/);
});
