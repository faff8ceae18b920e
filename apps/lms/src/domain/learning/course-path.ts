import { type courses, type Db, type modules, type RawSelect, typedRows, type UserRole } from '@lms/db';
import { sql } from 'drizzle-orm';
import { contentAccessOf, readsAllContent } from '../rules/content-access.js';
import { loadCourseProgress } from '../rules/unlock.js';
import { isEnrolled } from './access.js';
import { computeUnlock, type Step } from '../rules/unlock.js';

/**
 * A course as a path: every step in course order (each chapter, then its chapter quiz; each
 * module's quiz after its chapters; the final exam last), each done, open or locked for this
 * person, and what opens the locked ones. The outline beside the chapter and quiz pages, the
 * course page and "continue where you left off" read it; the unlock rule itself stays in
 * ./unlock-rule.ts and the refusals in ./access.ts, so a step shown open is one the server opens.
 */
export type StepKind = 'chapter' | 'chapter-quiz' | 'module-quiz' | 'final';

export interface QuizTally {
  /** Attempts started (each counts toward the allowance). */
  used: number;
  /** maxAttempts plus the attempts granted to this learner. */
  allowed: number;
  best: number | null;
  passed: boolean;
  /** An attempt started and not yet submitted (its time may be up: the page closes it when asked). */
  openAttemptId: number | null;
}

export interface PathStep {
  kind: StepKind;
  id: number;
  name: string;
  moduleId: number | null;
  state: 'done' | 'open' | 'locked';
  /** Quizzes of a learner: their attempts. */
  tally: QuizTally | null;
  /** An open quiz with no attempt left and none running: the learner cannot go on alone. */
  outOfAttempts: boolean;
}

export interface CoursePath {
  courseId: number;
  courseName: string;
  /** `learner`: an enrolled person's own progress; `preview`: a manager reading the course as a new learner would see it (nothing written). */
  mode: 'learner' | 'preview';
  modules: { id: number; name: string; steps: PathStep[] }[];
  final: PathStep | null;
  /** The first step of the course not done: what every locked step waits for. */
  waitingFor: { kind: 'chapter' | 'quiz'; id: number; name: string } | null;
  /** The first step not done that is open: "continue where you left off". */
  continueAt: PathStep | null;
  allChaptersDone: boolean;
  /** Every step done (the final exam passed, or no final exam). */
  finished: boolean;
}

/** How a person relates to a course's learning pages. */
export type PathRole = 'learner' | 'manager' | 'none';

/**
 * Whether a person follows a course as its learner (enrolled), reads it as a manager (owner
 * teacher, admin of its institution, super_admin: rules/content-access.ts), or neither. An
 * enrolled manager is a learner there: their own progress counts.
 */
export async function pathRoleOf(
  db: Db,
  person: { userId: string; role: UserRole },
  courseId: number,
): Promise<{ role: PathRole; course: { teacherId: string; institutionId: number } | null }> {
  const { rows } = await db.execute(sql`
    select c.teacher_id as "teacherId", c.institution_id as "institutionId",
      (select u.institution_id from users u where u.id = ${person.userId}) as "viewerInstitutionId"
    from courses c where c.id = ${courseId}`);
  const course = rows[0] as { teacherId: string; institutionId: number; viewerInstitutionId: number | null } | undefined;
  if (!course) return { role: 'none', course: null };
  if (await isEnrolled(db, person.userId, courseId)) return { role: 'learner', course };
  const access = contentAccessOf(
    { kind: 'session', userId: person.userId, role: person.role, institutionId: course.viewerInstitutionId },
    course,
    { enrolled: false },
  );
  return { role: readsAllContent(access) ? 'manager' : 'none', course };
}

/** The course's name, modules and the learner's quiz tallies (raw: JSON arrays built in one statement). */
interface Extra {
  courseName: RawSelect<typeof courses>['name'];
  modules: Pick<RawSelect<typeof modules>, 'id' | 'name'>[];
  tallies: {
    quizId: number;
    maxAttempts: number;
    used: number;
    best: number | null;
    passed: boolean;
    openAttemptId: number | null;
    extra: number;
  }[];
}

async function loadExtra(db: Db, userId: string | null, courseId: number): Promise<Extra> {
  const [row] = await typedRows<Extra>(
    db,
    sql`
    select (select name from courses where id = ${courseId}) as "courseName",
      coalesce((select json_agg(json_build_object('id', m.id, 'name', m.name) order by m.order_index, m.id)
        from modules m where m.course_id = ${courseId}), '[]'::json) as modules,
      coalesce((select json_agg(json_build_object(
          'quizId', q.id, 'maxAttempts', q.max_attempts,
          'used', (select count(*) from quiz_attempts a where a.quiz_id = q.id and a.user_id = ${userId}),
          'best', (select max(a.score)::float8 from quiz_attempts a where a.quiz_id = q.id and a.user_id = ${userId}),
          'passed', coalesce((select bool_or(a.passed) from quiz_attempts a where a.quiz_id = q.id and a.user_id = ${userId}), false),
          'openAttemptId', (select min(a.id) from quiz_attempts a where a.quiz_id = q.id and a.user_id = ${userId} and a.submitted_at is null),
          'extra', (select coalesce(sum(g.extra_attempts), 0) from quiz_attempt_grants g where g.quiz_id = q.id and g.user_id = ${userId})))
        from quizzes q where q.course_id = ${courseId}), '[]'::json) as tallies`,
  );
  return row;
}

/**
 * The path of `userId` through the course (mode `learner`), or the path a new learner would see
 * (mode `preview`: nothing done, no attempts; for managers, who read every step read-only).
 */
export async function loadCoursePath(db: Db, userId: string, courseId: number, mode: 'learner' | 'preview'): Promise<CoursePath> {
  const progress = await loadCourseProgress(db, userId, courseId);
  const state =
    mode === 'learner' ? progress.state : computeUnlock(progress.tree, { completedChapters: new Set(), passedQuizzes: new Set() });
  const extra = await loadExtra(db, mode === 'learner' ? userId : null, courseId);
  const tallies = new Map(extra.tallies.map((t) => [t.quizId, t]));
  const moduleNames = new Map(extra.modules.map((m) => [m.id, m.name]));

  const quizStep = (kind: StepKind, quizId: number, moduleId: number | null, open: boolean): PathStep => {
    const t = tallies.get(quizId);
    const tally: QuizTally | null =
      mode === 'learner' && t
        ? { used: t.used, allowed: t.maxAttempts + t.extra, best: t.best, passed: t.passed, openAttemptId: t.openAttemptId }
        : null;
    const done = tally?.passed ?? false;
    // The pre-test is open to every enrolled learner whatever else is locked (rules/unlock.ts):
    // the outline links it, as the step everything waits for.
    open ||= quizId === progress.tree.preTestQuizId;
    return {
      kind,
      id: quizId,
      name: progress.names.quiz.get(quizId) ?? '',
      moduleId,
      state: done ? 'done' : open ? 'open' : 'locked',
      tally,
      outOfAttempts: !done && open && tally !== null && tally.openAttemptId === null && tally.used >= tally.allowed,
    };
  };

  const modules = progress.tree.modules.map((m) => {
    const moduleOpen = state.module.get(m.id)?.unlocked ?? false;
    const steps: PathStep[] = [];
    for (const c of m.chapters) {
      const cs = state.chapter.get(c.id);
      steps.push({
        kind: 'chapter',
        id: c.id,
        name: progress.names.chapter.get(c.id) ?? '',
        moduleId: m.id,
        state: cs?.completed ? 'done' : cs?.unlocked ? 'open' : 'locked',
        tally: null,
        outOfAttempts: false,
      });
      const quizId = progress.tree.chapterQuiz.get(c.id);
      if (quizId !== undefined) steps.push(quizStep('chapter-quiz', quizId, m.id, cs?.unlocked ?? false));
    }
    if (m.quizId !== null) steps.push(quizStep('module-quiz', m.quizId, m.id, moduleOpen));
    return { id: m.id, name: moduleNames.get(m.id) ?? '', steps };
  });
  const final = progress.tree.finalQuizId === null ? null : quizStep('final', progress.tree.finalQuizId, null, state.finalUnlocked);
  const all = [...modules.flatMap((m) => m.steps), ...(final ? [final] : [])];
  const next: Step | null = state.nextStep;
  return {
    courseId,
    courseName: extra.courseName,
    mode,
    modules,
    final,
    waitingFor:
      next === null
        ? final && final.state !== 'done'
          ? { kind: 'quiz', id: final.id, name: final.name }
          : null
        : {
            kind: next.kind,
            id: next.id,
            name: (next.kind === 'chapter' ? progress.names.chapter : progress.names.quiz).get(next.id) ?? '',
          },
    continueAt: all.find((s) => s.state === 'open') ?? null,
    allChaptersDone: mode === 'learner' && state.allChaptersCompleted,
    finished: mode === 'learner' && all.every((s) => s.state === 'done'),
  };
}

/** The step after `step` in course order (null: it is the last). */
export function stepAfter(path: CoursePath, step: { kind: StepKind; id: number }): PathStep | null {
  const all = [...path.modules.flatMap((m) => m.steps), ...(path.final ? [path.final] : [])];
  const at = all.findIndex((s) => s.id === step.id && (s.kind === 'chapter') === (step.kind === 'chapter'));
  return at < 0 ? null : (all[at + 1] ?? null);
}

/** The step of a chapter or quiz in the path (null: not of this course). */
export function findStep(path: CoursePath, kind: 'chapter' | 'quiz', id: number): PathStep | null {
  const all = [...path.modules.flatMap((m) => m.steps), ...(path.final ? [path.final] : [])];
  return all.find((s) => s.id === id && (s.kind === 'chapter') === (kind === 'chapter')) ?? null;
}
