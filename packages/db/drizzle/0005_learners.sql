-- Learners take courses (DESIGN §5b): approval requests, open quiz attempts (started, scored on
-- submission), certificate verification codes with the KUM they were issued with, and purchases
-- handled by a payment provider (bank transfer confirmed by an admin). Existing rows are carried
-- over: every recorded attempt was a submitted one, every certificate gets a code and its course's KUM.
CREATE TYPE "public"."enrollment_request_status" AS ENUM('pending', 'approved', 'rejected');--> statement-breakpoint
CREATE TABLE "enrollment_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"course_id" integer NOT NULL,
	"status" "enrollment_request_status" DEFAULT 'pending' NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	CONSTRAINT "enrollment_requests_decided_has_time" CHECK (("enrollment_requests"."status" = 'pending') = ("enrollment_requests"."decided_at" is null))
);
--> statement-breakpoint
ALTER TABLE "quiz_attempts" ALTER COLUMN "score" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ALTER COLUMN "passed" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "certificates" ADD COLUMN "code" text DEFAULT replace(gen_random_uuid()::text, '-', '') NOT NULL;--> statement-breakpoint
ALTER TABLE "certificates" ADD COLUMN "kum" numeric(8, 2);--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "provider" text DEFAULT 'bank_transfer' NOT NULL;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "reference" text;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "confirmed_by" text;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD COLUMN "submitted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD COLUMN "answers" jsonb;--> statement-breakpoint
ALTER TABLE "enrollment_requests" ADD CONSTRAINT "enrollment_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollment_requests" ADD CONSTRAINT "enrollment_requests_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollment_requests" ADD CONSTRAINT "enrollment_requests_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "enrollment_requests_one_pending_key" ON "enrollment_requests" USING btree ("user_id","course_id") WHERE "enrollment_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "enrollment_requests_course_idx" ON "enrollment_requests" USING btree ("course_id","status");--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_confirmed_by_users_id_fk" FOREIGN KEY ("confirmed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "certificates_code_key" ON "certificates" USING btree ("code");--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_reference_key" ON "purchases" USING btree ("reference");--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_one_pending_course_key" ON "purchases" USING btree ("user_id","course_id") WHERE "purchases"."status" = 'pending' and "purchases"."course_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_one_pending_bundle_key" ON "purchases" USING btree ("user_id","bundle_id") WHERE "purchases"."status" = 'pending' and "purchases"."bundle_id" is not null;--> statement-breakpoint
UPDATE "quiz_attempts" SET "submitted_at" = "attempted_at" WHERE "submitted_at" IS NULL;--> statement-breakpoint
UPDATE "certificates" k SET "kum" = c."nilai_kum" FROM "courses" c WHERE c."id" = k."course_id" AND k."kum" IS NULL;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD CONSTRAINT "quiz_attempts_submitted_has_score" CHECK (("quiz_attempts"."submitted_at" is null) = ("quiz_attempts"."score" is null) and ("quiz_attempts"."score" is null) = ("quiz_attempts"."passed" is null));