import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import certificateRoutes from './certificates.js';
import chapterRoutes from './chapters.js';
import creditRoutes from './credits.js';
import evaluationRoutes from './evaluation.js';
import quizRoutes from './quizzes.js';

/** Taking a course (17B): chapters, quizzes, certificates. Enrolment and purchases register their own plugin. */
const learningRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(chapterRoutes);
  await app.register(quizRoutes);
  await app.register(certificateRoutes);
  await app.register(creditRoutes);
  await app.register(evaluationRoutes);
};

export default learningRoutes;
