// The words of the sign-in page and the account switch (./index.ts, routes/sso), in Bahasa
// Indonesia (the reference) and English: spread into the catalogs (../i18n/id.ts, ../i18n/en.ts) as
// their `switchAccount`, `signIn` blocks.

export function signInMessagesId() {
  const again = 'Silakan kembali ke situs web organisasi Anda lalu masuk lagi dari sana.';
  return {
    /** A sign-in link opened in a browser where someone else is signed in (routes/sso: login CSRF). */
    switchAccount: {
      title: 'Ganti akun?',
      current: (name: string) => `Di peramban ini Anda sedang masuk sebagai ${name}.`,
      incoming: (who: string) => `Tautan yang Anda buka akan memasukkan Anda sebagai ${who}.`,
      newAccount: (email: string) => `akun baru untuk ${email}`,
      why: 'Jika Anda tidak membuka tautan masuk dari situs organisasi Anda sendiri, jangan lanjutkan: seseorang mungkin ingin Anda bekerja di akunnya.',
      continue: (who: string) => `Lanjutkan sebagai ${who}`,
      stay: (name: string) => `Tetap sebagai ${name}`,
    },
    signIn: {
      title: 'Masuk',
      intro:
        'Anggota masuk melalui organisasinya: buka situs web organisasi Anda, masuk di sana, lalu ikuti tautan menuju kursus. ' +
        'Setelah itu Anda akan tiba di dasbor Anda.',
      technicalDetail: 'Detail teknis',
      /** What went wrong with a sign-in, for the person (see explainSignInError in ./index.ts). */
      problems: {
        missingToken: `Tautan masuk tidak lengkap: tautan itu tidak membawa token masuk. ${again}`,
        missingEmail:
          'Organisasi Anda tidak mengirimkan alamat e-mail Anda, padahal kami memerlukannya untuk membuka akun Anda. Silakan hubungi organisasi Anda.',
        missingMembershipId:
          'Organisasi Anda tidak mengirimkan nomor anggota Anda, padahal kami memerlukannya untuk membuka akun Anda. Silakan hubungi organisasi Anda.',
        memberInactive:
          'Akun Anda sedang tidak aktif sehingga Anda tidak dapat masuk. Silakan hubungi organisasi Anda atau tim dukungan kami.',
        emailInUse:
          'Di sini sudah ada akun dengan alamat e-mail Anda, tetapi akun itu tidak terhubung dengan layanan masuk organisasi Anda. ' +
          'Karena itu Anda tidak dimasukkan ke akun tersebut dan tidak ada yang diubah di dalamnya. ' +
          'Jika itu memang akun Anda, mintalah tim dukungan kami untuk menghubungkannya dengan organisasi Anda.',
        accountCreationFailed: 'Akun Anda belum dapat dibuat saat ini. Silakan coba lagi dalam beberapa menit.',
        sessionCreationFailed: 'Anda belum dapat masuk saat ini. Silakan coba lagi dalam beberapa menit.',
        temporarilyUnavailable:
          'Layanan kami sedang mengalami gangguan sementara sehingga Anda belum dapat masuk. Silakan coba lagi dalam beberapa menit.',
        failed: `Proses masuk tidak berhasil. ${again}`,
        expired: `Tautan masuk sudah kedaluwarsa (tautan hanya berlaku beberapa menit), atau jam di sistem organisasi Anda tidak tepat. ${again}`,
        alreadyUsed: `Tautan masuk ini sudah pernah dipakai; setiap tautan hanya berlaku satu kali. ${again}`,
        unknownOrganisation: 'Organisasi Anda belum terdaftar untuk masuk di sini. Silakan hubungi organisasi Anda.',
        keysUnavailable:
          'Kami belum dapat memeriksa tanda tangan organisasi Anda pada tautan masuk (kuncinya sedang tidak tersedia bagi kami). ' +
          'Silakan coba lagi nanti atau hubungi organisasi Anda.',
        tooLongLived: `Tautan masuk ditolak karena masa berlakunya terlalu panjang. ${again}`,
        badSignature: `Tanda tangan pada tautan masuk tidak sah. ${again}`,
        wrongAudience: `Tautan masuk ini tidak ditujukan untuk situs ini. ${again}`,
        notThroughGateway: `Tautan masuk tidak datang melalui jalur masuk resmi organisasi Anda. ${again}`,
        ssoNotConfigured: 'Masuk melalui organisasi belum disiapkan di situs ini. Silakan hubungi tim dukungan kami.',
        invalid: `Tautan masuk tidak sah. ${again}`,
      },
    },
  };
}

export function signInMessagesEn(): ReturnType<typeof signInMessagesId> {
  const again = "Please go back to your organisation's website and sign in again from there.";
  return {
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
  };
}
