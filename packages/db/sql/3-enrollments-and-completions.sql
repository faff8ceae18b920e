-- enrollments.completed_chapters; courses.student_count, completed_chapters_sum and
-- completed_enrollment_count; the 'student' participants (distinct students per category and
-- overall). Both tables take lms_user_course_lock for the same (user, course).

-- Completions written before the enrollment still count once the user enrolls (0002).
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

CREATE TRIGGER enrollments_before_insert_trg BEFORE INSERT ON enrollments
  FOR EACH ROW EXECUTE FUNCTION lms_enrollment_before_insert();

-- The course's enrollment figures, then distinct students of the course's category (read from the
-- locked course row, so a concurrent category change is seen) and overall. When the course itself
-- is being deleted its row is gone (category NULL): lms_course_deleting has already taken the
-- course's students out of its category. (0003; 0002's version kept student_count only.)
CREATE FUNCTION lms_count_students() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_category integer;
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE courses SET
      student_count = student_count + 1,
      completed_chapters_sum = completed_chapters_sum + NEW.completed_chapters,
      completed_enrollment_count = completed_enrollment_count
        + (chapter_count > 0 AND NEW.completed_chapters >= chapter_count)::int
    WHERE id = NEW.course_id
    RETURNING category_id INTO v_category;
    PERFORM lms_adjust_participants('student', v_category, ARRAY[NEW.user_id], 1);
    PERFORM lms_adjust_participants('student', 0, ARRAY[NEW.user_id], 1);
  ELSE
    UPDATE courses SET
      student_count = student_count - 1,
      completed_chapters_sum = completed_chapters_sum - OLD.completed_chapters,
      completed_enrollment_count = completed_enrollment_count
        - (chapter_count > 0 AND OLD.completed_chapters >= chapter_count)::int
    WHERE id = OLD.course_id
    RETURNING category_id INTO v_category;
    PERFORM lms_adjust_participants('student', v_category, ARRAY[OLD.user_id], -1);
    PERFORM lms_adjust_participants('student', 0, ARRAY[OLD.user_id], -1);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER enrollments_count_trg AFTER INSERT OR DELETE ON enrollments
  FOR EACH ROW EXECUTE FUNCTION lms_count_students();

CREATE TRIGGER enrollments_no_move_trg BEFORE UPDATE OF user_id, course_id ON enrollments
  FOR EACH ROW EXECUTE FUNCTION lms_forbid_update('user or course');

-- The enrollment's counter, then the course's sum and completed count, evaluated against the
-- chapter_count of the locked course row. A completion without an enrollment changes nothing
-- here (lms_enrollment_before_insert counts it later). (0003; 0002's version kept the
-- enrollment's counter only.)
CREATE FUNCTION lms_count_completions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_user text;
  v_course integer;
  v_delta integer;
  v_now integer;
BEGIN
  IF TG_OP = 'INSERT' THEN
    v_user := NEW.user_id; v_course := NEW.course_id; v_delta := 1;
  ELSE
    v_user := OLD.user_id; v_course := OLD.course_id; v_delta := -1;
  END IF;
  PERFORM lms_user_course_lock(v_user, v_course);
  UPDATE enrollments SET completed_chapters = completed_chapters + v_delta
    WHERE user_id = v_user AND course_id = v_course
    RETURNING completed_chapters INTO v_now;
  IF FOUND THEN
    UPDATE courses SET
      completed_chapters_sum = completed_chapters_sum + v_delta,
      completed_enrollment_count = completed_enrollment_count
        + (chapter_count > 0 AND v_now >= chapter_count)::int
        - (chapter_count > 0 AND v_now - v_delta >= chapter_count)::int
    WHERE id = v_course;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER chapter_completions_count_trg AFTER INSERT OR DELETE ON chapter_completions
  FOR EACH ROW EXECUTE FUNCTION lms_count_completions();

CREATE TRIGGER chapter_completions_no_move_trg BEFORE UPDATE OF user_id, chapter_id, course_id ON chapter_completions
  FOR EACH ROW EXECUTE FUNCTION lms_forbid_update('user, chapter or course');
