import { API_KEY_SHOWN_ONCE_WARNING } from '@lms/contracts';
import { enrolMessagesEn } from '../learning/messages.js';
import { creditMessagesEn } from '../learning/credit-messages.js';
import { studioMessagesEn } from '../studio/messages.js';
import { certificateMessagesEn } from '../learning/certificate-messages.js';
import { pathMessagesEn, quizLabelEn, moduleQuizLabelEn, examLabelEn } from '../learning/path-messages.js';
import { type Html, html } from '../view/html.js';
import type { DateInput, Format } from './format.js';
import type { Messages } from './id.js';

/** The pages in English: the same keys as the Indonesian catalog (./id.ts), which the type enforces. */
export function en(f: Format): Messages {
  const again = "Please go back to your organisation's website and sign in again from there.";
  return {
    ...enrolMessagesEn(f),
    ...creditMessagesEn(f),
    ...studioMessagesEn(),
    ...pathMessagesEn(f),
    ...certificateMessagesEn(f),
    layout: {
      title: (title) => `${title} · LMS`,
      skipToContent: 'Skip to content',
      mainNav: 'Main',
      dashboard: 'Dashboard',
      catalog: 'Catalog',
      bundles: 'Bundles',
      apiKeys: 'API keys',
      signedInAs: (name): Html => html`<span class="sr-only">Signed in as </span>${name}`,
      signOut: 'Sign out',
      language: 'Language',
    },

    errorPages: {
      403: { title: 'Not allowed', text: 'Your account may not open this page.' },
      404: { title: 'Page not found', text: 'There is nothing here, or it is not visible to you.' },
      413: { title: 'Too much to send', text: 'What this form sent is larger than it accepts. Go back, shorten it and send it again.' },
      429: {
        title: 'Too many requests',
        text: 'Too many requests came from you or your address in a short time. Please wait a moment, then try again.',
      },
      500: { title: 'Something went wrong', text: 'We could not show this page just now. Please try again in a moment.' },
      503: {
        title: 'Service temporarily unavailable',
        text: 'Our service is having a temporary problem. Please try again in a few minutes.',
      },
    },
    errors: {
      backToDashboard: 'Back to your dashboard',
      howToSignIn: 'How to sign in',
    },

    status: { 'not-started': 'Not started', 'in-progress': 'In progress', completed: 'Completed' },
    tier: { anggota: 'Member', umum: 'General public', mahasiswa: 'Student' },
    certificate: { issued: 'Issued', eligible: 'Eligible', notYet: 'Not yet' },
    common: {
      none: 'None',
      progressOf: (name) => `${name} progress`,
      kum: (n) => `${f.number(n)} KUM`,
      modules: (n) => f.plural(n, { one: '# module', other: '# modules' }),
      chapters: (n) => f.plural(n, { one: '# chapter', other: '# chapters' }),
      students: (n) => f.plural(n, { one: '# student', other: '# students' }),
      questions: (n) => f.plural(n, { one: '# question', other: '# questions' }),
      ignored: (fields) => `Ignored an invalid value for: ${f.list(fields)}.`,
      pager: {
        label: 'Pages',
        previous: 'Previous',
        next: 'Next',
        pageOf: (page, pages) => `Page ${f.number(page)} of ${f.number(pages)}`,
      },
    },

    switchAccount: {
      title: 'Switch accounts?',
      current: (name) => `In this browser you are signed in as ${name}.`,
      incoming: (who) => `The link you opened would sign you in as ${who}.`,
      newAccount: (email) => `a new account for ${email}`,
      why: "If you did not open a sign-in link from your own organisation's site, do not continue: someone may want you to work in their account.",
      continue: (who) => `Continue as ${who}`,
      stay: (name) => `Stay as ${name}`,
    },
    signIn: {
      title: 'Sign in',
      intro:
        "Members sign in through their organisation: open your organisation's website, sign in there, and follow its link to the courses. " +
        'You will land on your dashboard.',
      technicalDetail: 'Technical detail',
      problems: {
        missingToken: `The sign-in link was incomplete: it did not carry a sign-in token. ${again}`,
        missingEmail:
          'Your organisation did not send your e-mail address, which we need to open your account. Please contact your organisation.',
        missingMembershipId:
          'Your organisation did not send your membership number, which we need to open your account. Please contact your organisation.',
        memberInactive: 'Your account is not active at the moment, so you cannot sign in. Please contact your organisation or our support.',
        emailInUse:
          "An account with your e-mail address already exists here, but it is not connected to your organisation's sign-in, " +
          'so you were not signed in to it and nothing about it was changed. ' +
          'If it is your account, ask our support to connect it to your organisation.',
        accountCreationFailed: 'We could not open your account just now. Please try again in a few minutes.',
        sessionCreationFailed: 'We could not sign you in just now. Please try again in a few minutes.',
        temporarilyUnavailable:
          'Our service is having a temporary problem, so we could not sign you in. Please try again in a few minutes.',
        failed: `Signing in did not work. ${again}`,
        expired: `The sign-in link has expired (links work for a few minutes only), or your organisation's clock is off. ${again}`,
        alreadyUsed: `This sign-in link has already been used; each link works once. ${again}`,
        unknownOrganisation: 'Your organisation is not registered for signing in here. Please contact your organisation.',
        keysUnavailable:
          "We could not check your organisation's signature on the sign-in link (its keys are not available to us right now). " +
          'Please try again later or contact your organisation.',
        tooLongLived: `The sign-in link was issued for too long a time and was refused. ${again}`,
        badSignature: `The sign-in link's signature is not valid. ${again}`,
        wrongAudience: `The sign-in link was not meant for this site. ${again}`,
        notThroughGateway: `The sign-in link did not come through your organisation's official sign-in route. ${again}`,
        ssoNotConfigured: 'Signing in through an organisation is not set up on this site yet. Please contact our support.',
        invalid: `The sign-in link is not valid. ${again}`,
      },
    },

    dashboard: {
      title: 'Dashboard',
      welcome: (name) => `Welcome, ${name}`,
      atAGlance: 'At a glance',
      coursesEnrolled: 'Courses enrolled',
      completed: 'Completed',
      certificates: 'Certificates',
      kumEarned: 'KUM points earned',
      yourCourses: 'Your courses',
      courses: 'Courses',
      notEnrolled: html`You are not enrolled in any course yet. <a href="/dashboard/catalog">Browse the catalog</a>.`,
      column: {
        course: 'Course',
        status: 'Status',
        state: 'State',
        progress: 'Progress',
        chaptersDone: 'Chapters done',
        kum: 'KUM',
        certificate: 'Certificate',
        category: 'Category',
        students: 'Students',
        modules: 'Modules',
      },
      account: 'Your account',
      name: 'Name',
      email: 'E-mail',
      tier: 'Tier',
      membershipId: 'Membership ID',
      metrics: 'Platform metrics',
      otherCurrencies: (amounts) => `Also paid in other currencies (not added in): ${f.list(amounts)}.`,
      figure: {
        courses: 'Courses',
        publishedClasses: 'Published classes',
        students: 'Students',
        enrollments: 'Enrollments',
        completionRate: 'Completion rate',
        buyers30Days: 'Buyers, last 30 days',
        revenue30Days: 'Revenue, last 30 days',
        kum30Days: 'KUM issued, last 30 days',
        certificates: 'Certificates',
        peopleWithCertificate: 'People with a certificate',
      },
      byCategory: 'By category',
      chart: {
        completionRate: 'Completion rate per category',
        buyers: 'Buyers in the last 30 days',
        revenue: 'Revenue in the last 30 days',
        certificates: 'Certificates issued',
        noCategories: 'No categories yet.',
      },
      state: { draft: 'Draft', publishedWithoutEventCode: 'Published, no event code', inCatalog: 'In the catalog' },
      draftsIncluded: 'Drafts included',
      everyCourseDraftsIncluded: 'Every course, drafts included',
      noOwnCourses: 'You have no courses yet.',
      noCourses: 'There are no courses yet.',
      showingNewest: (shown, total): Html =>
        html`Showing the ${f.number(shown)} newest of ${f.number(total)}. <a href="/dashboard/catalog">See them all in the catalog</a>.`,
      apiKeysText: html`Connect your own systems to the catalog with an API key. <a href="/dashboard/api-keys">Manage your API keys</a>.`,
    },

    catalog: {
      title: 'Catalog',
      search: 'Search',
      searchPlaceholder: 'Name, instructor, code…',
      category: 'Category',
      allCategories: 'All categories',
      noCategory: 'No category',
      sortBy: 'Sort by',
      sort: { newest: 'Newest first', name: 'Name (A to Z)', students: 'Most students', modules: 'Most modules' },
      show: 'Show courses',
      instructor: (name) => `Instructor: ${name}`,
      found: (n) => f.plural(n, { one: '# course found.', other: '# courses found.' }),
      noMatch: 'No course matches.',
      list: 'Courses',
      field: { search: 'search', categoryId: 'category', sortBy: 'sort order', page: 'page' },
    },

    course: {
      backToCatalog: '← Catalog',
      category: 'Category',
      instructor: 'Instructor',
      code: 'Course code',
      /** Shown to those who manage the course only (the catalog gives the code to no one else). */
      enrolmentCode: 'Enrolment code',
      dates: 'Dates',
      courseDates: (start, end) => {
        const range = f.dayRange(start, end);
        if (range) return range;
        const [from, until] = [f.day(start), f.day(end)];
        if (from) return `From ${from}`;
        if (until) return `Until ${until}`;
        return '—';
      },
      kumPoints: 'KUM points',
      price: 'Price',
      notForSale: 'Not for sale',
      students: 'Students',
      yourStatus: 'Your status',
      yourProgress: 'Your progress',
      courseProgress: 'Course progress',
      certificate: 'Certificate',
      modules: 'Modules',
      noModules: 'No modules yet.',
      noLongerOffered: 'This course is no longer offered. You keep it, with your progress and certificate, because you are enrolled.',
      noChapters: 'No chapters yet.',
      locked: 'Locked',
      unlocked: 'Unlocked',
      done: 'Done',
      chapterQuiz: (title, questions) => `${quizLabelEn(title)} (${f.plural(questions, { one: '# question', other: '# questions' })})`,
      moduleQuiz: (title, questions) => `${moduleQuizLabelEn(title)} (${f.plural(questions, { one: '# question', other: '# questions' })})`,
      finalExam: (title, questions, passMark) =>
        `${examLabelEn(title)} · ${f.plural(questions, { one: '# question', other: '# questions' })} · pass mark ${f.number(passMark)}`,
    },

    apiKeys: {
      title: 'API keys',
      intro: html`API keys let your own systems read the catalog (<code>GET /api/courses</code>) and the progress metrics. Send the key in the <code>x-api-key</code> header. Treat a key like a password.`,
      create: 'Create a key',
      name: 'Name',
      namePlaceholder: 'e.g. Website integration',
      submit: 'Create key',
      newKey: html`Your new key <span id="new-key-name"></span>:`,
      copy: 'Copy key',
      shownOnce: API_KEY_SHOWN_ONCE_WARNING,
      yourKeys: 'Your keys',
      column: { name: 'Name', prefix: 'Prefix', created: 'Created', lastUsed: 'Last used', state: 'State' },
      none: 'You have no API keys yet.',
      teachersOnly: 'API keys are for teacher accounts.',
      script: {
        never: 'Never',
        revoke: 'Revoke',
        revoked: 'Revoked {date}',
        nameRequired: 'Give the key a name.',
        copied: 'Copied.',
        selectToCopy: 'Selected: press Ctrl+C (or Cmd+C) to copy.',
        confirmRevoke: 'Revoke the key "{name}"? Systems using it will stop working at once. This cannot be undone.',
        sessionEnded: 'Your session has ended. Please sign in again.',
        badName: 'The key name was not accepted: use 1 to 100 characters.',
        notAllowed: 'Your account may not do this.',
        notFound: 'This key was not found. Reload the page to see how things stand.',
        tooManyRequests: 'Too many requests. Please try again in a moment.',
        failed: 'The request failed (status {status}). Please try again.',
        offline: 'The server could not be reached. Check your connection and try again.',
      },
    },
    learn: {
      refused: {
        notEnrolled: 'You are not enrolled in this course yet. Enrol on the course page first.',
        locked: (step: { kind: 'chapter' | 'quiz'; name: string } | null) =>
          step === null
            ? 'This part is still locked.'
            : step.kind === 'chapter'
              ? `This part is still locked: complete the chapter “${step.name}” first.`
              : `This part is still locked: pass the quiz “${step.name}” first.`,
      },
      chapter: {
        ofCourse: (course: string, module: string) => `${course} · ${module}`,
        backToCourse: 'Back to the course',
        completed: 'Completed',
        markComplete: 'Mark as complete',
        takeQuiz: "Take this chapter's quiz",
        next: 'Next chapter',
      },
      quiz: {
        passMark: (score: number) => `Pass mark: ${f.number(score)}`,
        timeLimit: (minutes: number) => `Time limit: ${f.number(minutes)} minutes`,
        attempt: (n: number, max: number) => `Attempt ${f.number(n)} of ${f.number(max)}`,
        maxAttempts: (max: number) => `At most ${f.number(max)} attempts`,
        start: 'Start',
        submit: 'Submit answers',
        answerText: 'Your answer',
        until: (date: DateInput) => `Submit before ${f.dateTime(date) ?? ''}`,
        result: 'Result',
        score: (score: number) => `Score: ${f.number(score)}`,
        passed: 'Passed',
        failed: 'Not passed',
        attemptsLeft: (n: number) => `Attempts left: ${f.number(n)}`,
        tryAgain: 'Try again',
        certificateEarned: 'Congratulations! Your certificate has been issued.',
      },
      certificate: {
        title: 'Certificate',
        statement: 'This certifies that',
        completed: 'has completed the course',
        membershipId: 'Membership number',
        kum: 'KUM points',
        issuedOn: 'Issued on',
        institution: 'Provider',
        code: 'Verification code',
        verifyAt: 'Check it at',
        print: "Use your browser's print function to print this page.",
        valid: 'This certificate is valid.',
        revoked: 'This certificate was revoked on {date}. Reason: {reason}',
        mine: 'My certificates',
        open: 'View certificate',
        credential: 'Download the digital credential (Open Badges 3.0)',
        credentialHint: 'A signed file anyone can verify, for your digital wallet or your association.',
      },
    },
  };
}
