import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ForbiddenError } from '../../errors.js';
import { CrossSiteFormError } from '../../plugins/csrf.js';
import { acceptFormBodies } from '../form-body.js';
import { pageContext } from '../i18n/index.js';
import chapterScreen from './chapter.js';
import chapterPreviewScreen from './chapter-preview.js';
import duplicateScreen from './duplicate.js';
import historyScreen from './history.js';
import newCourseScreen from './new-course.js';
import outlineScreen from './outline.js';
import outlineDeleteScreen from './outline-delete.js';
import picturesScreen from './pictures.js';
import publishScreen from './publish.js';
import questionImportScreen from './question-import.js';
import quizScreen from './quiz.js';
import { routeOf } from './screen.js';
import settingsScreen from './settings.js';

/**
 * The course studio, under /dashboard/studio: plain server-rendered forms (no JavaScript needed)
 * over the authoring operations (domain/authoring, AUTHORING_OPERATIONS), the same table and the
 * same rule on who may write (mayAuthorSql) as the authoring API. Each screen is a module of its
 * routes (./screen.ts says how they are declared); every form posts with the form CSRF rule
 * (`csrf: 'form'`). A save that fails keeps what was typed (422, the problem next to its field); a
 * save made on an older version than the stored one is refused (409) showing both. See
 * docs/authoring.md.
 */
const SCREENS = [
  newCourseScreen,
  publishScreen,
  duplicateScreen,
  settingsScreen,
  outlineScreen,
  outlineDeleteScreen,
  chapterScreen,
  chapterPreviewScreen,
  quizScreen,
  questionImportScreen,
  picturesScreen,
  historyScreen,
];

const studio: FastifyPluginAsyncZod = async (app) => {
  acceptFormBodies(app, app.config.AUTHORING_BODY_LIMIT_BYTES);
  await app.register(multipart, {
    limits: { fileSize: app.config.STUDIO_UPLOAD_LIMIT_BYTES, files: 1, fields: 10, parts: 12 },
  });
  app.setErrorHandler(async (err, request) => {
    const words = pageContext(app, request).t.enrol.forbidden;
    if (err instanceof CrossSiteFormError) throw new ForbiddenError(words.crossSite);
    throw err;
  });
  for (const screen of SCREENS) for (const route of screen(app)) app.route(routeOf(app, route));
};

export default studio;
