-- A course changing category or being deleted moves its participants between scopes (0003).

-- A course changing category (including ON DELETE SET NULL of its category) moves its students
-- and certificate holders from the old category's scope to the new one's. Runs with the course
-- row locked, so enrollments written concurrently are either seen here or see the new category.
CREATE FUNCTION lms_move_course_participants() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_students text[] := ARRAY(SELECT user_id FROM enrollments WHERE course_id = NEW.id ORDER BY user_id);
  v_holders text[] := ARRAY(SELECT user_id FROM certificates WHERE course_id = NEW.id ORDER BY user_id);
BEGIN
  PERFORM lms_adjust_participants('student', OLD.category_id, v_students, -1);
  PERFORM lms_adjust_participants('student', NEW.category_id, v_students, 1);
  PERFORM lms_adjust_participants('certificate_holder', OLD.category_id, v_holders, -1);
  PERFORM lms_adjust_participants('certificate_holder', NEW.category_id, v_holders, 1);
  RETURN NULL;
END $$;

CREATE TRIGGER courses_move_participants_trg AFTER UPDATE OF category_id ON courses
  FOR EACH ROW WHEN (OLD.category_id IS DISTINCT FROM NEW.category_id)
  EXECUTE FUNCTION lms_move_course_participants();

-- A deleted course's enrollments and certificates are removed by cascades that run after the
-- course row is gone (their triggers then find no category): take the course's students and
-- holders out of its category first, with the row already locked by the DELETE. The overall
-- scope (0) is left to the cascaded rows' own triggers.
CREATE FUNCTION lms_course_deleting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lms_adjust_participants('student', OLD.category_id,
    ARRAY(SELECT user_id FROM enrollments WHERE course_id = OLD.id ORDER BY user_id), -1);
  PERFORM lms_adjust_participants('certificate_holder', OLD.category_id,
    ARRAY(SELECT user_id FROM certificates WHERE course_id = OLD.id ORDER BY user_id), -1);
  RETURN OLD;
END $$;

CREATE TRIGGER courses_deleting_trg BEFORE DELETE ON courses
  FOR EACH ROW EXECUTE FUNCTION lms_course_deleting();
