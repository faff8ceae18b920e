import type { BundleCourse, BundleQuery, CourseBundle, PublicCourse } from '@lms/contracts';
import { bundles, categories, courses, type Db } from '@lms/db';
import { and, asc, eq, inArray, isNotNull, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { buildPublicCourses, courseSummaryColumns } from './course-summaries.js';
import { type CatalogViewer, learnerOf, toIso } from './viewer.js';

const courseOne = alias(courses, 'course_one');
const courseTwo = alias(courses, 'course_two');

const bothBuyerVisible: SQL = and(
  eq(courseOne.isPublished, true),
  isNotNull(courseOne.eventCode),
  eq(courseTwo.isPublished, true),
  isNotNull(courseTwo.eventCode),
)!;

/**
 * Recommended bundles in id order. Prices are added up in SQL (numeric), so no floating-point
 * sum is ever rounded; the two courses are summarised with the catalog's batched loader.
 */
export async function findBundles(db: Db, viewer: CatalogViewer, query: BundleQuery): Promise<CourseBundle[]> {
  const where = and(
    query.public ? bothBuyerVisible : undefined,
    query.categoryId !== undefined ? eq(bundles.categoryId, query.categoryId) : undefined,
  );
  const pairSum = sql`${courseOne.price} + ${courseTwo.price}`;
  const rows = await db
    .select({
      id: bundles.id,
      name: bundles.name,
      description: bundles.description,
      categoryId: bundles.categoryId,
      categoryCode: categories.code,
      categoryName: categories.name,
      courseOneId: bundles.courseOneId,
      courseTwoId: bundles.courseTwoId,
      totalPrice: sql<string>`(${pairSum})::text`,
      price: sql<string>`coalesce(${bundles.price}, ${pairSum})::text`,
      priceNonMember: sql<string>`coalesce(${bundles.priceNonMember}, ${bundles.price}, ${pairSum})::text`,
      kum: sql<string>`(coalesce(${courseOne.nilaiKum}, 0) + coalesce(${courseTwo.nilaiKum}, 0))::text`,
      currency: bundles.currency,
      createdAt: bundles.createdAt,
      updatedAt: bundles.updatedAt,
    })
    .from(bundles)
    .innerJoin(categories, eq(categories.id, bundles.categoryId))
    .innerJoin(courseOne, eq(courseOne.id, bundles.courseOneId))
    .innerJoin(courseTwo, eq(courseTwo.id, bundles.courseTwoId))
    .where(where)
    .orderBy(asc(bundles.id));
  if (rows.length === 0) return [];

  const ids = [...new Set(rows.flatMap((r) => [r.courseOneId, r.courseTwoId]))];
  const courseRows = await db
    .select(courseSummaryColumns)
    .from(courses)
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(inArray(courses.id, ids));
  const summaries = new Map((await buildPublicCourses(db, courseRows, learnerOf(viewer))).map((c) => [Number(c.id), c]));

  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    categoryId: r.categoryId,
    category: { id: r.categoryId, code: r.categoryCode, name: r.categoryName },
    courseOne: bundleCourse(summaries.get(r.courseOneId)!),
    courseTwo: bundleCourse(summaries.get(r.courseTwoId)!),
    totalPrice: Number(r.totalPrice),
    price: Number(r.price),
    priceNonMember: Number(r.priceNonMember),
    kum: Number(r.kum),
    currency: r.currency,
    createdAt: toIso(r.createdAt),
    updatedAt: toIso(r.updatedAt),
  }));
}

function bundleCourse(c: PublicCourse): BundleCourse {
  const out: BundleCourse = {
    id: c.id,
    numericId: Number(c.id),
    name: c.name,
    description: c.description,
    instructor: c.instructor,
    code: c.code,
    eventCode: c.eventCode,
    nilaiKum: c.nilaiKum,
    price: c.price,
    priceNonMember: c.priceNonMember,
    currency: c.currency,
    categoryId: c.categoryId,
    enrollmentType: c.enrollmentType,
    isPurchasable: c.isPurchasable,
    previewMode: c.previewMode,
    startDate: c.startDate,
    endDate: c.endDate,
    modules: c.modules,
    certificate: c.certificate,
    minPassingScore: c.minPassingScore,
    totalProgress: c.totalProgress,
    status: c.status,
    studentCount: c.studentCount,
  };
  if (c.thumbnail !== undefined) out.thumbnail = c.thumbnail;
  return out;
}
