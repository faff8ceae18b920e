CREATE TYPE "public"."participant_kind" AS ENUM('student', 'certificate_holder');--> statement-breakpoint
CREATE TABLE "participant_tallies" (
	"kind" "participant_kind" NOT NULL,
	"scope_id" integer NOT NULL,
	"stripe" smallint NOT NULL,
	"participants" integer NOT NULL,
	CONSTRAINT "participant_tallies_pkey" PRIMARY KEY("kind","scope_id","stripe")
);
--> statement-breakpoint
CREATE TABLE "participants" (
	"kind" "participant_kind" NOT NULL,
	"scope_id" integer NOT NULL,
	"user_id" text NOT NULL,
	"row_count" integer NOT NULL,
	CONSTRAINT "participants_pkey" PRIMARY KEY("kind","scope_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "bundles" ADD COLUMN "paid_purchase_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "completed_chapters_sum" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "completed_enrollment_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "certificate_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "paid_purchase_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "purchases_paid_orphan_idx" ON "purchases" USING btree ("id") WHERE "purchases"."status" = 'paid' and "purchases"."course_id" is null and "purchases"."bundle_id" is null;--> statement-breakpoint

-- Progress aggregates, kept by triggers so GET /api/lms-progress reads O(courses + categories)
-- rows instead of scanning enrollments, certificates or purchases:
--   courses.completed_chapters_sum      Σ enrollments.completed_chapters of the course
--   courses.completed_enrollment_count  enrollments with chapter_count > 0 and completed_chapters >= chapter_count
--   courses.certificate_count, courses.paid_purchase_count, bundles.paid_purchase_count
--   participants / participant_tallies  distinct students and certificate holders per category
--                                       (scope_id = category id) and overall (scope_id = 0)
-- Every trigger changes an aggregate relative to the values current when it holds the row lock
-- (UPDATE ... SET x = x + delta re-reads the newest row version under READ COMMITTED), so each
-- step keeps the invariant whatever the order of concurrent steps. The course row is the lock
-- that orders a chapter-count change (which recounts the course's completed enrollments) against
-- the completions of that course.

-- The counters of 0002 rely on READ COMMITTED (a write's trigger must see enrollments committed
-- while it waited for the advisory lock). Refuse the writes that would silently miss them.
CREATE OR REPLACE FUNCTION lms_user_course_lock(p_user_id text, p_course_id integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'enrollments and chapter completions must be written under READ COMMITTED, not %',
      upper(current_setting('transaction_isolation'))
      USING ERRCODE = 'feature_not_supported';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(p_user_id || ':' || p_course_id::text, 727));
END $$;
--> statement-breakpoint

CREATE FUNCTION lms_participant_stripe(p_user_id text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (hashtext(p_user_id) & 15)::smallint $$;
--> statement-breakpoint

-- Adds p_delta (+1 or -1) per occurrence of each user in p_user_ids to that user's row in
-- (p_kind, p_scope_id); a user entering (row created) or leaving (row_count reaching 0) the scope
-- moves the scope's tally. A NULL scope (a course without category, or a deleted course) is a no-op.
CREATE FUNCTION lms_adjust_participants(p_kind participant_kind, p_scope_id integer, p_user_ids text[], p_delta integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_changed text[];
BEGIN
  IF p_scope_id IS NULL OR coalesce(cardinality(p_user_ids), 0) = 0 THEN
    RETURN;
  END IF;
  IF p_delta > 0 THEN
    WITH wanted AS (
      SELECT user_id, count(*)::int AS n FROM unnest(p_user_ids) AS user_id GROUP BY user_id
    ), upserted AS (
      INSERT INTO participants AS p (kind, scope_id, user_id, row_count)
      SELECT p_kind, p_scope_id, user_id, n FROM wanted ORDER BY user_id
      ON CONFLICT (kind, scope_id, user_id) DO UPDATE SET row_count = p.row_count + excluded.row_count
      RETURNING p.user_id, p.row_count
    )
    -- A row whose count equals what was added did not exist before (an existing row has >= 1).
    SELECT array_agg(u.user_id) INTO v_changed
    FROM upserted u JOIN wanted w USING (user_id) WHERE u.row_count = w.n;
  ELSE
    WITH wanted AS (
      SELECT user_id, count(*)::int AS n FROM unnest(p_user_ids) AS user_id GROUP BY user_id
    ), updated AS (
      UPDATE participants p SET row_count = p.row_count - w.n
      FROM wanted w
      WHERE p.kind = p_kind AND p.scope_id = p_scope_id AND p.user_id = w.user_id
      RETURNING p.user_id, p.row_count
    )
    SELECT array_agg(user_id) FILTER (WHERE row_count <= 0) INTO v_changed FROM updated;
    IF v_changed IS NOT NULL THEN
      DELETE FROM participants WHERE kind = p_kind AND scope_id = p_scope_id AND user_id = ANY (v_changed);
    END IF;
  END IF;
  IF v_changed IS NOT NULL THEN
    INSERT INTO participant_tallies AS t (kind, scope_id, stripe, participants)
    SELECT p_kind, p_scope_id, lms_participant_stripe(user_id), sign(p_delta)::int * count(*)::int
    FROM unnest(v_changed) AS user_id GROUP BY 3 ORDER BY 3
    ON CONFLICT (kind, scope_id, stripe) DO UPDATE SET participants = t.participants + excluded.participants;
  END IF;
END $$;
--> statement-breakpoint

-- Chapters: a changed chapter count moves enrollments in and out of "complete"; recount them
-- (after the chapter_count UPDATE, so the course row is locked and the count sees every
-- committed completion).
CREATE FUNCTION lms_recount_completed_enrollments(p_course_id integer) RETURNS void
LANGUAGE sql AS $$
  UPDATE courses c SET completed_enrollment_count = (
    SELECT count(*) FROM enrollments e
    WHERE e.course_id = c.id AND c.chapter_count > 0 AND e.completed_chapters >= c.chapter_count
  )
  WHERE c.id = p_course_id;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION lms_count_chapters() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint

-- Enrollments: the course's enrollment figures, then distinct students of the course's category
-- (read from the locked course row, so a concurrent category change is seen) and overall.
-- When the course itself is being deleted its row is gone (category NULL): lms_course_deleting
-- has already taken the course's students out of its category.
CREATE OR REPLACE FUNCTION lms_count_students() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint

-- Completions: the enrollment's counter (as in 0002), then the course's sum and completed count,
-- evaluated against the chapter_count of the locked course row.
CREATE OR REPLACE FUNCTION lms_count_completions() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint

CREATE FUNCTION lms_count_certificates() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_category integer;
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE courses SET certificate_count = certificate_count - 1 WHERE id = OLD.course_id
      RETURNING category_id INTO v_category;
    PERFORM lms_adjust_participants('certificate_holder', v_category, ARRAY[OLD.user_id], -1);
    PERFORM lms_adjust_participants('certificate_holder', 0, ARRAY[OLD.user_id], -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    v_category := NULL;
    UPDATE courses SET certificate_count = certificate_count + 1 WHERE id = NEW.course_id
      RETURNING category_id INTO v_category;
    PERFORM lms_adjust_participants('certificate_holder', v_category, ARRAY[NEW.user_id], 1);
    PERFORM lms_adjust_participants('certificate_holder', 0, ARRAY[NEW.user_id], 1);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER certificates_count_trg AFTER INSERT OR DELETE OR UPDATE OF user_id, course_id ON certificates
  FOR EACH ROW EXECUTE FUNCTION lms_count_certificates();
--> statement-breakpoint

-- Paid purchases count toward their bundle when they have one, else toward their course (as the
-- progress metrics attribute them); a purchase with neither (both deleted) counts overall only,
-- found through purchases_paid_orphan_idx.
CREATE FUNCTION lms_count_purchases() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.status = 'paid' THEN
    IF OLD.bundle_id IS NOT NULL THEN
      UPDATE bundles SET paid_purchase_count = paid_purchase_count - 1 WHERE id = OLD.bundle_id;
    ELSIF OLD.course_id IS NOT NULL THEN
      UPDATE courses SET paid_purchase_count = paid_purchase_count - 1 WHERE id = OLD.course_id;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'paid' THEN
    IF NEW.bundle_id IS NOT NULL THEN
      UPDATE bundles SET paid_purchase_count = paid_purchase_count + 1 WHERE id = NEW.bundle_id;
    ELSIF NEW.course_id IS NOT NULL THEN
      UPDATE courses SET paid_purchase_count = paid_purchase_count + 1 WHERE id = NEW.course_id;
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER purchases_count_insert_delete_trg AFTER INSERT OR DELETE ON purchases
  FOR EACH ROW EXECUTE FUNCTION lms_count_purchases();
--> statement-breakpoint
CREATE TRIGGER purchases_count_update_trg AFTER UPDATE OF status, course_id, bundle_id ON purchases
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.course_id IS DISTINCT FROM NEW.course_id
        OR OLD.bundle_id IS DISTINCT FROM NEW.bundle_id)
  EXECUTE FUNCTION lms_count_purchases();
--> statement-breakpoint

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
--> statement-breakpoint
CREATE TRIGGER courses_move_participants_trg AFTER UPDATE OF category_id ON courses
  FOR EACH ROW WHEN (OLD.category_id IS DISTINCT FROM NEW.category_id)
  EXECUTE FUNCTION lms_move_course_participants();
--> statement-breakpoint

-- A deleted course's enrollments and certificates are removed by cascades that run after the
-- course row is gone (their triggers then find no category): take the course's students and
-- holders out of its category first, with the row already locked by the DELETE.
CREATE FUNCTION lms_course_deleting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lms_adjust_participants('student', OLD.category_id,
    ARRAY(SELECT user_id FROM enrollments WHERE course_id = OLD.id ORDER BY user_id), -1);
  PERFORM lms_adjust_participants('certificate_holder', OLD.category_id,
    ARRAY(SELECT user_id FROM certificates WHERE course_id = OLD.id ORDER BY user_id), -1);
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER courses_deleting_trg BEFORE DELETE ON courses
  FOR EACH ROW EXECUTE FUNCTION lms_course_deleting();
--> statement-breakpoint

-- Recomputes every counter and aggregate from the raw rows (0002's counters first: the course
-- figures below read chapter_count and completed_chapters).
CREATE OR REPLACE FUNCTION lms_recompute_counters() RETURNS void LANGUAGE sql AS $$
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
  UPDATE courses c SET
    completed_chapters_sum = coalesce(en.completed_sum, 0),
    completed_enrollment_count = coalesce(en.completed, 0),
    certificate_count = coalesce(k.n, 0),
    paid_purchase_count = coalesce(p.n, 0)
  FROM courses c2
  LEFT JOIN (
    SELECT e.course_id, sum(e.completed_chapters) AS completed_sum,
           count(*) FILTER (WHERE cc.chapter_count > 0 AND e.completed_chapters >= cc.chapter_count) AS completed
    FROM enrollments e JOIN courses cc ON cc.id = e.course_id GROUP BY e.course_id
  ) en ON en.course_id = c2.id
  LEFT JOIN (SELECT course_id, count(*) AS n FROM certificates GROUP BY course_id) k ON k.course_id = c2.id
  LEFT JOIN (
    SELECT course_id, count(*) AS n FROM purchases WHERE status = 'paid' AND bundle_id IS NULL GROUP BY course_id
  ) p ON p.course_id = c2.id
  WHERE c.id = c2.id;
  UPDATE bundles b SET paid_purchase_count = coalesce(
    (SELECT count(*) FROM purchases p WHERE p.bundle_id = b.id AND p.status = 'paid'), 0);
  DELETE FROM participants;
  INSERT INTO participants (kind, scope_id, user_id, row_count)
    SELECT 'student'::participant_kind, 0, user_id, count(*) FROM enrollments GROUP BY user_id
    UNION ALL
    SELECT 'student'::participant_kind, c.category_id, e.user_id, count(*)
      FROM enrollments e JOIN courses c ON c.id = e.course_id
      WHERE c.category_id IS NOT NULL GROUP BY c.category_id, e.user_id
    UNION ALL
    SELECT 'certificate_holder'::participant_kind, 0, user_id, count(*) FROM certificates GROUP BY user_id
    UNION ALL
    SELECT 'certificate_holder'::participant_kind, c.category_id, k.user_id, count(*)
      FROM certificates k JOIN courses c ON c.id = k.course_id
      WHERE c.category_id IS NOT NULL GROUP BY c.category_id, k.user_id;
  DELETE FROM participant_tallies;
  INSERT INTO participant_tallies (kind, scope_id, stripe, participants)
    SELECT kind, scope_id, lms_participant_stripe(user_id), count(*)
    FROM participants GROUP BY 1, 2, 3;
$$;
