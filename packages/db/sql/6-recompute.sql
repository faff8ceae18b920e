-- Recomputes every counter and aggregate from the raw rows (0003; it replaced 0002's, which
-- covered the 0002 counters only). Used after bulk loads that disable the triggers (seed
-- synthetic) and by tests that check the triggers against a recomputation. 0002's counters come
-- first: the course figures below read chapter_count and completed_chapters.
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
