import type { BundleCourse, BundleQuery, CourseBundle, PublicCourse } from '@lms/contracts';
import { bundles, categories, courses, type Db } from '@lms/db';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { buyerVisibleWhere } from '../rules/buyer-visible.js';
import { bundlePriceColumns } from '../rules/tier-prices.js';
import { loadPublicCourses } from './course-summaries.js';
import { type CatalogViewer, learnerOf, toIso } from './viewer.js';
import { preparedPer } from '../../lib/prepared.js';

const courseOne = alias(courses, 'course_one');
const courseTwo = alias(courses, 'course_two');

// biome-ignore lint/style/noNonNullAssertion: and() of two conditions is never undefined.
const bothBuyerVisible: SQL = and(buyerVisibleWhere(courseOne), buyerVisibleWhere(courseTwo))!;

/**
 * Recommended bundles in id order. Prices are added up in SQL (numeric), so no floating-point
 * sum is ever rounded; the two courses are summarised with the catalog's batched loader. Every
 * statement is prepared once (the bundles' in four variants: public or not, one category or all).
 */
export async function findBundles(db: Db, viewer: CatalogViewer, query: BundleQuery): Promise<CourseBundle[]> {
  const rows = await bundleStatement(db, { onlyPublic: query.public === true, oneCategory: query.categoryId !== undefined }).execute({
    categoryId: query.categoryId ?? 0,
  });
  if (rows.length === 0) return [];

  const ids = [...new Set(rows.flatMap((r) => [r.courseOneId, r.courseTwoId]))];
  // The two courses' rows come with their trees, in one statement. A bundle's course shows no
  // final exam (bundleCourse), so its questions are not loaded.
  const summaries = new Map((await loadPublicCourses(db, ids, learnerOf(viewer))).map((c) => [Number(c.id), c]));

  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    categoryId: r.categoryId,
    category: { id: r.categoryId, code: r.categoryCode, name: r.categoryName },
    // biome-ignore lint/style/noNonNullAssertion: summaries holds every course of these rows (loaded by their ids above).
    courseOne: bundleCourse(summaries.get(r.courseOneId)!),
    // biome-ignore lint/style/noNonNullAssertion: summaries holds every course of these rows (loaded by their ids above).
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

interface BundleVariant {
  onlyPublic: boolean;
  oneCategory: boolean;
}

function buildBundleStatement(db: Db, { onlyPublic, oneCategory }: BundleVariant, name: string) {
  const where = and(
    onlyPublic ? bothBuyerVisible : undefined,
    oneCategory ? eq(bundles.categoryId, sql.placeholder('categoryId')) : undefined,
  );
  const pairSum = sql`${courseOne.price} + ${courseTwo.price}`;
  return db
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
      ...bundlePriceColumns(courseOne, courseTwo),
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
    .orderBy(asc(bundles.id))
    .prepare(name);
}

/** The bundles statement of a variant: public ones only or all, one category or every one. */
const bundleStatement = preparedPer(
  (v: BundleVariant) => `catalog_bundles${v.onlyPublic ? '_public' : ''}${v.oneCategory ? '_category' : ''}`,
  (db, v, name) => buildBundleStatement(db, v, name),
);
