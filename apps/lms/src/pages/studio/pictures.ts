import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AuthoringContext, chaptersShowing, type CourseRow, AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import {
  deletePicture,
  findCoursePicture,
  listPictures,
  PICTURE_LIMITS,
  PictureNameError,
  PictureTooLargeError,
  picturePath,
  postgresPictureStore,
  UnsupportedPictureError,
  uploadPicture,
} from '../../domain/media/pictures.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';
import { type App, changed, courseOf, getPage, Id, postForm, studioPath } from './screen.js';
import { flash } from './views.js';

// The course's pictures (/dashboard/studio/courses/:id/pictures): upload one (multipart, checked
// and re-encoded by domain/media/pictures.ts), make one the cover (the updateCourse operation), or
// delete one, told first which chapters show it.

const PictureParams = z.object({ id: Id, pictureId: Id });
const pictureIdOf = (request: FastifyRequest) => (request.params as z.infer<typeof PictureParams>).pictureId;
type Upload = FastifyRequest & { tooLarge?: boolean };
/** A fetch of the editor's script (it sends `accept: application/json`); a form post takes the page. */
const wantsJson = (request: FastifyRequest) => /^application\/json\b/.test(request.headers.accept ?? '');
/** A file's name as a picture's alternative text in Markdown (no brackets to end it). */
const pictureAlt = (name: string) => name.replace(/[[\]]/g, '').replace(/\.[a-z0-9]{2,5}$/i, '');

/** A picture over one of PICTURE_LIMITS, said with its figures and the limit. */
function overLimit(ctx: PageContext, err: PictureTooLargeError): string {
  const s = ctx.t.studio.pictures;
  const n = (v: number) => ctx.f.number(v);
  const { width, height, frames, scans } = err.header;
  switch (err.limit) {
    case 'pixels':
      return s.tooManyPixels(n(width), n(height), n(PICTURE_LIMITS.pixels));
    case 'gifFrames':
      return s.tooManyFrames(n(frames), n(PICTURE_LIMITS.gifFrames));
    case 'gifPixels':
      return s.gifTooLarge(n(frames), n(width), n(height), n(frames * width * height), n(PICTURE_LIMITS.gifPixels));
    case 'jpegScans':
      return s.tooManyScans(n(scans ?? 0), n(PICTURE_LIMITS.jpegScans));
  }
}

export default function picturesScreen(app: App) {
  const uploadLimit = app.config.STUDIO_UPLOAD_LIMIT_BYTES;
  const store = postgresPictureStore(app.db);
  const mb = (ctx: PageContext) => ctx.f.number(Math.round((uploadLimit / (1024 * 1024)) * 10) / 10);

  const picturesPage = async (ctx: PageContext, actx: AuthoringContext, course: CourseRow, note: Html | false) => {
    const s = ctx.t.studio.pictures;
    const pictures = await listPictures(app.db, actx, course.id);
    const rows = pictures.map((p) => {
      const isCover = course.cover_picture?.endsWith(picturePath(p)) === true;
      return html`<li class="card"><img src="${href(picturePath(p))}" alt="${p.originalName}" width="160">
<p><code>![${p.originalName.replace(/[[\]]/g, '')}](${picturePath(p)})</code></p>
${isCover ? html`<span class="badge completed">${s.isCover}</span>` : html`<form method="post" action="${href('/dashboard/studio/courses', course.id, 'pictures', p.id, 'cover')}" class="inline"><button type="submit" class="secondary">${s.makeCover}</button></form>`}
<a href="${href('/dashboard/studio/courses', course.id, 'pictures', p.id, 'delete')}" class="danger-link">${s.delete}</a></li>`;
    });
    return html`${note}
<form method="post" action="${href('/dashboard/studio/courses', course.id, 'pictures')}" enctype="multipart/form-data" class="card stack">
<p class="field"><label for="f-file">${s.file}</label> <input id="f-file" type="file" name="file" accept="image/png,image/jpeg,image/webp,image/gif" required><br><small class="muted">${s.limit(mb(ctx))}</small></p>
<button type="submit">${s.upload}</button>
</form>
${pictures.length === 0 ? html`<p class="muted">${s.none}</p>` : html`<ul class="course-list">${rows}</ul>`}`;
  };

  return [
    getPage('/studio/courses/:id/pictures', 'Course studio: pictures', async ({ ctx, actx, id, query, show }) => {
      const course = await courseOf(app, actx, id);
      const note = query.saved === '1' && flash(ctx.t.studio.pictures.uploaded);
      return show(course, 'pictures', ctx.t.studio.pictures.title, await picturesPage(ctx, actx, course, note));
    }),

    postForm(
      '/studio/courses/:id/pictures',
      'Uploads a picture (multipart/form-data, field `file`)',
      async ({ request, reply, ctx, actx, id, show, back }) => {
        const course = await courseOf(app, actx, id);
        const s = ctx.t.studio.pictures;
        const refuse = async (message: string, status: number) => {
          reply.header('connection', 'close');
          return show(course, 'pictures', s.title, await picturesPage(ctx, actx, course, flash(message, 'error')), status);
        };
        if ((request as Upload).tooLarge) return refuse(s.tooLarge(mb(ctx)), 413);
        if (!request.isMultipart()) return refuse(s.noFile, 422);
        let bytes: Buffer;
        let name = '';
        try {
          const file = await request.file();
          if (!file) return refuse(s.noFile, 422);
          name = file.filename;
          bytes = await file.toBuffer();
        } catch (err) {
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return refuse(s.tooLarge(mb(ctx)), 413);
          throw err;
        }
        if (bytes.length === 0) return refuse(s.noFile, 422);
        let picture: Awaited<ReturnType<typeof uploadPicture>>;
        try {
          picture = await uploadPicture(app.db, store, actx, course.id, { bytes, name });
        } catch (err) {
          if (err instanceof PictureTooLargeError) return refuse(overLimit(ctx, err), 422);
          if (err instanceof PictureNameError) return refuse(s.badName, 422);
          if (err instanceof UnsupportedPictureError) return refuse(ctx.t.studioWords.notPicture, 422);
          throw err;
        }
        // The chapter editor's script uploads from inside the editor and asks for JSON: the
        // picture's path and its Markdown line, to put at the cursor.
        if (wantsJson(request)) {
          const path = picturePath(picture);
          return reply
            .code(201)
            .header('cache-control', 'no-store')
            .send({ path, markdown: `![${pictureAlt(name)}](${path})` });
        }
        return back(studioPath(course.id, '/pictures?saved=1'));
      },
      undefined,
      {
        multipart: true,
        created: z.object({ path: z.string(), markdown: z.string() }),
        // A body announced larger than the limit (plus room for the form's other parts) is refused before a byte of it is read.
        onRequest: async (request) => {
          const length = Number(request.headers['content-length'] ?? 0);
          if (length > uploadLimit + 64 * 1024) (request as Upload).tooLarge = true;
        },
      },
    ),

    postForm(
      '/studio/courses/:id/pictures/:pictureId/cover',
      'Makes a picture the course cover',
      async ({ request, actx, id, back }) => {
        const picture = await findCoursePicture(app.db, actx, id, pictureIdOf(request));
        const course = await courseOf(app, actx, id);
        const coverPicture = `${app.config.PUBLIC_URL.replace(/\/$/, '')}${picturePath(picture)}`;
        await op.updateCourse(app.db, actx, id, { coverPicture }, course.version);
        await changed(app, id);
        return back(studioPath(id, '/pictures'));
      },
      PictureParams,
    ),

    getPage(
      '/studio/courses/:id/pictures/:pictureId/delete',
      'Course studio: confirm deleting a picture',
      async ({ request, ctx, actx, id, confirmDelete }) => {
        const pictureId = pictureIdOf(request);
        const picture = await findCoursePicture(app.db, actx, id, pictureId);
        const course = await courseOf(app, actx, id);
        const path = picturePath(picture);
        const c = ctx.t.studio.confirm;
        const inChapters = (await chaptersShowing(app.db, id, path)).map((name) => c.chapterLine(name));
        const notes = [
          course.cover_picture?.endsWith(path) === true && c.isCover,
          inChapters.length > 0 && `${c.inText} ${inChapters.join(', ')}`,
        ];
        const action = href('/dashboard/studio/courses', id, 'pictures', pictureId, 'delete');
        const cancel = href('/dashboard/studio/courses', id, 'pictures');
        return confirmDelete(course, 'pictures', c.picture(picture.originalName), { lines: [], notes, picture: path }, action, cancel);
      },
      PictureParams,
    ),

    postForm(
      '/studio/courses/:id/pictures/:pictureId/delete',
      'Deletes a picture',
      async ({ request, actx, id, back }) => {
        await deletePicture(app.db, actx, id, pictureIdOf(request));
        return back(studioPath(id, '/pictures'));
      },
      PictureParams,
    ),
  ];
}
