import { migrate } from '@lms/db';
import { type CommandGroup, describeDb, parse } from './command.js';

export const dbCommands: CommandGroup = {
  name: 'db',
  summary: 'database maintenance',
  subcommands: [
    {
      name: 'migrate',
      summary: 'apply every pending migration',
      usage: 'db migrate',
      help: 'Applies the committed SQL migrations (packages/db/drizzle) that the database does not have yet.\nSafe to run again, and from several processes at once on PostgreSQL.',
      async run(args, ctx) {
        parse(args, {});
        const db = ctx.openDb({ longStatements: true });
        await migrate(db);
        ctx.io.out(`Migrations applied (${describeDb(db, ctx.config)}).`);
      },
    },
  ],
};
