import type { BadRequestError } from '../../errors.js';
import { refusalsByField } from '../form-errors.js';
import type { PageContext } from '../i18n/index.js';
import type { FieldErrors } from './forms.js';

// A quiz the domain refuses after the form's own checks (a role the final exam cannot take, a
// limit), said beside its field in the page's words (../form-errors.ts), never the domain's English.

export function quizRefusals(ctx: PageContext, err: BadRequestError): FieldErrors {
  const said = ctx.t.formErrors;
  const errors = refusalsByField(err.details, said);
  if (errors.evidenceRole !== undefined) errors.evidenceRole = said.quiz.finalNotPreTest;
  return errors;
}
