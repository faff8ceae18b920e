CREATE TABLE "chapter_time" (
	"user_id" text NOT NULL,
	"chapter_id" integer NOT NULL,
	"course_id" integer NOT NULL,
	"active_seconds" integer DEFAULT 0 NOT NULL,
	"beats" integer DEFAULT 0 NOT NULL,
	"first_beat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_beat_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chapter_time_user_id_chapter_id_pk" PRIMARY KEY("user_id","chapter_id"),
	CONSTRAINT "chapter_time_nonnegative" CHECK ("chapter_time"."active_seconds" >= 0)
);
--> statement-breakpoint
CREATE TABLE "course_accreditations" (
	"id" serial PRIMARY KEY NOT NULL,
	"course_id" integer NOT NULL,
	"scheme" text NOT NULL,
	"reference" text NOT NULL,
	"valid_from" timestamp with time zone NOT NULL,
	"valid_until" timestamp with time zone,
	"value" numeric(8, 2) NOT NULL,
	"professions" text[] DEFAULT '{}'::text[] NOT NULL,
	"recorded_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "course_accreditations_value_positive" CHECK ("course_accreditations"."value" > 0),
	CONSTRAINT "course_accreditations_period" CHECK ("course_accreditations"."valid_until" is null or "course_accreditations"."valid_until" > "course_accreditations"."valid_from"),
	CONSTRAINT "course_accreditations_reference_length" CHECK (length("course_accreditations"."reference") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "credit_schemes" (
	"code" text PRIMARY KEY NOT NULL,
	"body" text NOT NULL,
	"unit" text NOT NULL,
	"minutes_per_unit" integer,
	"rounding" text DEFAULT 'down' NOT NULL,
	"max_per_course" numeric(8, 2) NOT NULL,
	"requires_pre_test" boolean DEFAULT false NOT NULL,
	"post_test_min_score" integer,
	"requires_evaluation" boolean DEFAULT false NOT NULL,
	"min_minutes_share" integer,
	"min_attendance_share" integer,
	"evaluation_items" jsonb,
	"built_in" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_schemes_code_shape" CHECK ("credit_schemes"."code" ~ '^[A-Z][A-Z0-9-]{0,19}$'),
	CONSTRAINT "credit_schemes_rounding" CHECK ("credit_schemes"."rounding" in ('down', 'nearest', 'half')),
	CONSTRAINT "credit_schemes_minutes_per_unit" CHECK ("credit_schemes"."minutes_per_unit" between 1 and 600),
	CONSTRAINT "credit_schemes_max_per_course" CHECK ("credit_schemes"."max_per_course" > 0 and "credit_schemes"."max_per_course" <= 1000),
	CONSTRAINT "credit_schemes_post_test_min" CHECK ("credit_schemes"."post_test_min_score" between 0 and 100),
	CONSTRAINT "credit_schemes_minutes_share" CHECK ("credit_schemes"."min_minutes_share" between 1 and 100),
	CONSTRAINT "credit_schemes_attendance_share" CHECK ("credit_schemes"."min_attendance_share" between 1 and 100)
);
--> statement-breakpoint
CREATE TABLE "evaluation_completions" (
	"user_id" text NOT NULL,
	"course_id" integer NOT NULL,
	"completed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evaluation_completions_user_id_course_id_pk" PRIMARY KEY("user_id","course_id")
);
--> statement-breakpoint
CREATE TABLE "evaluation_responses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"course_id" integer NOT NULL,
	"answers" jsonb NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"submitted_on" date NOT NULL
);
--> statement-breakpoint
CREATE TABLE "evidence_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"course_id" integer NOT NULL,
	"kind" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"session_id" text,
	"actor_id" text,
	"reason" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evidence_log_kind" CHECK ("evidence_log"."kind" in ('chapter_time', 'chapter_completed', 'pre_test', 'post_test', 'evaluation', 'certificate', 'correction')),
	CONSTRAINT "evidence_log_correction_reason" CHECK ("evidence_log"."kind" <> 'correction' or length("evidence_log"."reason") between 1 and 500)
);
--> statement-breakpoint
DROP INDEX "credits_certificate_key";--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "expected_minutes" integer;--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "post_test_min_score" integer;--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "evaluation_items" jsonb;--> statement-breakpoint
ALTER TABLE "quizzes" ADD COLUMN "evidence_role" text;--> statement-breakpoint
ALTER TABLE "certificates" ADD COLUMN "evidence" jsonb;--> statement-breakpoint
ALTER TABLE "credits" ADD COLUMN "accreditation_id" integer;--> statement-breakpoint
ALTER TABLE "chapter_time" ADD CONSTRAINT "chapter_time_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_time" ADD CONSTRAINT "chapter_time_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_time" ADD CONSTRAINT "chapter_time_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "course_accreditations" ADD CONSTRAINT "course_accreditations_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "course_accreditations" ADD CONSTRAINT "course_accreditations_scheme_credit_schemes_code_fk" FOREIGN KEY ("scheme") REFERENCES "public"."credit_schemes"("code") ON DELETE restrict ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "course_accreditations" ADD CONSTRAINT "course_accreditations_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evaluation_completions" ADD CONSTRAINT "evaluation_completions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evaluation_completions" ADD CONSTRAINT "evaluation_completions_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evaluation_responses" ADD CONSTRAINT "evaluation_responses_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence_log" ADD CONSTRAINT "evidence_log_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence_log" ADD CONSTRAINT "evidence_log_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence_log" ADD CONSTRAINT "evidence_log_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chapter_time_course_idx" ON "chapter_time" USING btree ("course_id","user_id");--> statement-breakpoint
CREATE INDEX "course_accreditations_course_idx" ON "course_accreditations" USING btree ("course_id");--> statement-breakpoint
CREATE UNIQUE INDEX "course_accreditations_reference_key" ON "course_accreditations" USING btree ("course_id","scheme","reference");--> statement-breakpoint
CREATE INDEX "evaluation_responses_course_idx" ON "evaluation_responses" USING btree ("course_id");--> statement-breakpoint
CREATE INDEX "evidence_log_learner_idx" ON "evidence_log" USING btree ("user_id","course_id","at");--> statement-breakpoint
ALTER TABLE "credits" ADD CONSTRAINT "credits_accreditation_id_course_accreditations_id_fk" FOREIGN KEY ("accreditation_id") REFERENCES "public"."course_accreditations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "quizzes_one_evidence_role_per_course" ON "quizzes" USING btree ("course_id","evidence_role") WHERE "quizzes"."evidence_role" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "credits_certificate_scheme_key" ON "credits" USING btree ("certificate_id","scheme");--> statement-breakpoint
ALTER TABLE "chapters" ADD CONSTRAINT "chapters_expected_minutes" CHECK ("chapters"."expected_minutes" between 1 and 1440);--> statement-breakpoint
ALTER TABLE "courses" ADD CONSTRAINT "courses_post_test_min_score" CHECK ("courses"."post_test_min_score" between 0 and 100);--> statement-breakpoint
ALTER TABLE "quizzes" ADD CONSTRAINT "quizzes_evidence_role" CHECK ("quizzes"."evidence_role" in ('pre_test', 'post_test'));--> statement-breakpoint
-- The shipped credit schemes (docs/authoring.md, "Credit schemes"). KUM, SKP and SKP-IDI were the
-- names courses already used: they require no evidence, so their courses behave as before.
INSERT INTO "credit_schemes" ("code", "body", "unit", "minutes_per_unit", "rounding", "max_per_course", "requires_pre_test", "post_test_min_score", "requires_evaluation", "min_minutes_share", "min_attendance_share", "built_in") VALUES
  ('KUM', 'Kemendikbudristek: angka kredit dosen (PAK)', 'KUM', NULL, 'down', 20, false, NULL, false, NULL, NULL, true),
  ('SKP', 'Satuan Kredit Profesi (umum)', 'SKP', NULL, 'down', 50, false, NULL, false, NULL, NULL, true),
  ('SKP-IDI', 'Ikatan Dokter Indonesia: P2KB', 'SKP', NULL, 'down', 50, false, NULL, false, NULL, NULL, true),
  ('SKP-KEMENKES', 'Kementerian Kesehatan RI: SKP tenaga medis dan tenaga kesehatan', 'JPL', 45, 'down', 50, true, 70, true, 80, 80, true),
  ('SKP-IAI', 'Ikatan Akuntan Indonesia: PPL', 'SKP', 50, 'down', 40, false, 60, true, 100, 100, true),
  ('PKPA', 'PERADI: Pendidikan Khusus Profesi Advokat', 'JP', 45, 'down', 200, false, 60, true, 80, 80, true)
ON CONFLICT ("code") DO NOTHING;--> statement-breakpoint
-- A course may name a scheme of its own (the shape only was checked): it becomes a scheme that
-- requires nothing, so that its value can be an accreditation.
INSERT INTO "credit_schemes" ("code", "body", "unit", "max_per_course")
SELECT DISTINCT c."credit_scheme", c."credit_scheme", c."credit_scheme", 1000 FROM "courses" c
ON CONFLICT ("code") DO NOTHING;--> statement-breakpoint
-- A course's value before accreditations existed becomes an accreditation recorded by nobody
-- (recorded_by null), open-ended and capped by its scheme: its learners keep earning what the
-- course promised; an admin may end it or replace it.
INSERT INTO "course_accreditations" ("course_id", "scheme", "reference", "valid_from", "value")
SELECT c."id", c."credit_scheme", 'before-accreditation', '1970-01-01T00:00:00Z', least(c."nilai_kum", s."max_per_course")
FROM "courses" c JOIN "credit_schemes" s ON s."code" = c."credit_scheme"
WHERE c."nilai_kum" > 0;--> statement-breakpoint
UPDATE "credits" cr SET "accreditation_id" = a."id"
FROM "course_accreditations" a
WHERE a."course_id" = cr."course_id" AND a."scheme" = cr."scheme" AND a."reference" = 'before-accreditation';
--> statement-breakpoint
-- The catalog shows what the accreditation gives.
UPDATE "courses" c SET "nilai_kum" = a."value"
FROM "course_accreditations" a
WHERE a."course_id" = c."id" AND a."reference" = 'before-accreditation' AND c."nilai_kum" <> a."value";
