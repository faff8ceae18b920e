CREATE TYPE "public"."authoring_credential" AS ENUM('session', 'partner-token');--> statement-breakpoint
CREATE TABLE "authoring_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"course_id" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"credential" "authoring_credential" NOT NULL,
	"user_id" text,
	"user_role" "user_role",
	"partner_issuer" text,
	"partner_subject" text,
	"token_id" text,
	"action" text NOT NULL,
	"target_id" integer,
	"changes" jsonb NOT NULL,
	"request_id" text,
	CONSTRAINT "authoring_events_actor" CHECK (("authoring_events"."credential" = 'session' and "authoring_events"."user_id" is not null) or ("authoring_events"."credential" = 'partner-token' and "authoring_events"."partner_issuer" is not null))
);
--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD COLUMN "questions" jsonb;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD COLUMN "pass_mark" integer;--> statement-breakpoint
CREATE INDEX "authoring_events_course_idx" ON "authoring_events" USING btree ("course_id","id");