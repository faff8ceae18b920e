-- courses.module_count and courses.chapter_count (0002), and courses.completed_enrollment_count
-- recounted when the chapter count moves (0003).

CREATE FUNCTION lms_count_modules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE courses SET module_count = module_count + 1 WHERE id = NEW.course_id;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE courses SET module_count = module_count - 1 WHERE id = OLD.course_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER modules_count_trg AFTER INSERT OR DELETE OR UPDATE OF course_id ON modules
  FOR EACH ROW EXECUTE FUNCTION lms_count_modules();

-- A changed chapter count moves enrollments in and out of "complete"; recount them (after the
-- chapter_count UPDATE, so the course row is locked and the count sees every committed completion).
CREATE FUNCTION lms_recount_completed_enrollments(p_course_id integer) RETURNS void
LANGUAGE sql AS $$
  UPDATE courses c SET completed_enrollment_count = (
    SELECT count(*) FROM enrollments e
    WHERE e.course_id = c.id AND c.chapter_count > 0 AND e.completed_chapters >= c.chapter_count
  )
  WHERE c.id = p_course_id;
$$;

CREATE FUNCTION lms_count_chapters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE courses SET chapter_count = chapter_count + 1 WHERE id = NEW.course_id;
    PERFORM lms_recount_completed_enrollments(NEW.course_id);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE courses SET chapter_count = chapter_count - 1 WHERE id = OLD.course_id;
    PERFORM lms_recount_completed_enrollments(OLD.course_id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER chapters_count_trg AFTER INSERT OR DELETE OR UPDATE OF course_id ON chapters
  FOR EACH ROW EXECUTE FUNCTION lms_count_chapters();
