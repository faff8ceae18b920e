-- Counters that lists, sorting and progress metrics read instead of aggregating raw rows:
--   courses.module_count, courses.chapter_count, courses.student_count (enrollments),
--   enrollments.completed_chapters (distinct completed chapters of that enrollment's course).
-- Triggers keep them right on every write path, including cascading deletes. A chapter
-- completion and an enrollment of the same (user, course) take the same transaction-scoped
-- advisory lock, so the two cannot race past each other under READ COMMITTED.

CREATE FUNCTION lms_user_course_lock(p_user_id text, p_course_id integer) RETURNS void
LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtextextended(p_user_id || ':' || p_course_id::text, 727));
$$;
--> statement-breakpoint

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
--> statement-breakpoint
CREATE TRIGGER modules_count_trg AFTER INSERT OR DELETE OR UPDATE OF course_id ON modules
  FOR EACH ROW EXECUTE FUNCTION lms_count_modules();
--> statement-breakpoint

CREATE FUNCTION lms_count_chapters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE courses SET chapter_count = chapter_count + 1 WHERE id = NEW.course_id;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE courses SET chapter_count = chapter_count - 1 WHERE id = OLD.course_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chapters_count_trg AFTER INSERT OR DELETE OR UPDATE OF course_id ON chapters
  FOR EACH ROW EXECUTE FUNCTION lms_count_chapters();
--> statement-breakpoint

CREATE FUNCTION lms_enrollment_before_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lms_user_course_lock(NEW.user_id, NEW.course_id);
  -- Completions written before the enrollment still count once the user enrolls.
  NEW.completed_chapters := (
    SELECT count(*) FROM chapter_completions
    WHERE user_id = NEW.user_id AND course_id = NEW.course_id
  );
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER enrollments_before_insert_trg BEFORE INSERT ON enrollments
  FOR EACH ROW EXECUTE FUNCTION lms_enrollment_before_insert();
--> statement-breakpoint

CREATE FUNCTION lms_count_students() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE courses SET student_count = student_count + 1 WHERE id = NEW.course_id;
  ELSE
    UPDATE courses SET student_count = student_count - 1 WHERE id = OLD.course_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER enrollments_count_trg AFTER INSERT OR DELETE ON enrollments
  FOR EACH ROW EXECUTE FUNCTION lms_count_students();
--> statement-breakpoint

CREATE FUNCTION lms_count_completions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM lms_user_course_lock(NEW.user_id, NEW.course_id);
    UPDATE enrollments SET completed_chapters = completed_chapters + 1
      WHERE user_id = NEW.user_id AND course_id = NEW.course_id;
  ELSE
    PERFORM lms_user_course_lock(OLD.user_id, OLD.course_id);
    UPDATE enrollments SET completed_chapters = completed_chapters - 1
      WHERE user_id = OLD.user_id AND course_id = OLD.course_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chapter_completions_count_trg AFTER INSERT OR DELETE ON chapter_completions
  FOR EACH ROW EXECUTE FUNCTION lms_count_completions();
--> statement-breakpoint

-- A completion's (user, chapter, course) is its identity; moving one is a delete and an insert.
CREATE FUNCTION lms_forbid_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows cannot change their %', TG_TABLE_NAME, TG_ARGV[0];
END $$;
--> statement-breakpoint
CREATE TRIGGER chapter_completions_no_move_trg BEFORE UPDATE OF user_id, chapter_id, course_id ON chapter_completions
  FOR EACH ROW EXECUTE FUNCTION lms_forbid_update('user, chapter or course');
--> statement-breakpoint
CREATE TRIGGER enrollments_no_move_trg BEFORE UPDATE OF user_id, course_id ON enrollments
  FOR EACH ROW EXECUTE FUNCTION lms_forbid_update('user or course');
--> statement-breakpoint

-- Recomputes every counter from the raw rows. Used after bulk loads that disable the triggers
-- (seed synthetic) and by tests that check the triggers against a recomputation.
CREATE FUNCTION lms_recompute_counters() RETURNS void LANGUAGE sql AS $$
  UPDATE courses c SET
    module_count = coalesce((SELECT count(*) FROM modules m WHERE m.course_id = c.id), 0),
    chapter_count = coalesce((SELECT count(*) FROM chapters ch WHERE ch.course_id = c.id), 0),
    student_count = coalesce((SELECT count(*) FROM enrollments e WHERE e.course_id = c.id), 0);
  UPDATE enrollments e SET completed_chapters = coalesce(x.n, 0)
    FROM enrollments e2
    LEFT JOIN (
      SELECT user_id, course_id, count(*) AS n FROM chapter_completions GROUP BY user_id, course_id
    ) x ON x.user_id = e2.user_id AND x.course_id = e2.course_id
    WHERE e.id = e2.id AND e.completed_chapters IS DISTINCT FROM coalesce(x.n, 0);
$$;
