import fc from 'fast-check';
import type { Lead } from '../lead-input';
import { dedupeKeysFromHashes, HASHED_KEYS, hashOf, type HashedKey, leadDedupeKeys, leadHashes, normalizeKey } from './dedupe-keys';
import { foldLookalikes, normalizeEmail, normalizeLastName, sha256Hex } from './normalize';
import { keyedPersonKey } from './person-key';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

// Expected hashes are literals, computed once outside the code under test with
// `printf '%s' "<normalized>" | sha256sum`.
const SHA = {
  garciamarquez: '10b290231e586d07c99cf73e94822ecc05d155a06cf4af89e9dffd7c0afa0526',
  zip90210: 'b83c588da0c6931625f42e0948054a3ade722bfd02c27816305742ed7390ac6c',
  dob19900704: '1637d116c2ab4ddcb5f429166516f37639dce3f21ba372f3152b1231cfa210a2',
  year1990: 'a7be8e1fe282a37cd666e0632b17d933fa13f21addf4798fc0455bc166e2488c',
  year2008: 'e5e53c784d5d49de1cabb6e904bf3380026aadcb9769775a268dd304dd9aa2df',
  gmail: '06a240d11cc201676da976f7b49341181fd180da37cbe40a77432c0a366c80c3',
  phone: '86a907bbd527b3622f86e7f6426db3b6c3a31e985410a9c343479e778a072f19',
  /** sha256 of `${garciamarquez}|${zip90210}|${dob19900704}` (the three hashes joined by |). */
  nameZipDob: '4d52fd61c3370c801a324c29e6b3f6ed5479ca8237bbe675bd4285a68027af7a',
};

describe('normalization vectors (affiliate-api.md, "Normalization before hashing")', () => {
  it.each<[HashedKey, string, string, string]>([
    ['email', '  John.Doe@Example.COM ', 'john.doe@example.com', '836f82db99121b3481011f16b49dfa5fbc714a0d1b1b9f784a1ebbbf5b39577f'],
    ['email', 'J.O.H.N.Doe+newsletter@Gmail.com', 'johndoe@gmail.com', '06a240d11cc201676da976f7b49341181fd180da37cbe40a77432c0a366c80c3'],
    ['email', 'john.doe@gmail.com', 'johndoe@gmail.com', '06a240d11cc201676da976f7b49341181fd180da37cbe40a77432c0a366c80c3'],
    ['email', 'John.Doe+a+b@GoogleMail.com', 'johndoe@gmail.com', '06a240d11cc201676da976f7b49341181fd180da37cbe40a77432c0a366c80c3'],
    ['email', 'Jane.Roe+promo@yahoo.com', 'jane.roe+promo@yahoo.com', '86c3f22fa7a6359c361bf43569b4594b64971e641121d4a90c10b4d053b4e5e2'],
    [
      'email',
      'first.last+x@mail.gmail.com',
      'first.last+x@mail.gmail.com',
      'e4f6ee279b4970c9ebd4196b14d59629396e2b5e99d3995f170586526be8bf16',
    ],
    ['phone', '(415) 555-0134', '4155550134', '86a907bbd527b3622f86e7f6426db3b6c3a31e985410a9c343479e778a072f19'],
    ['phone', '+1 415.555.0134', '4155550134', '86a907bbd527b3622f86e7f6426db3b6c3a31e985410a9c343479e778a072f19'],
    ['phone', '+1 (415) 555-0134', '4155550134', '86a907bbd527b3622f86e7f6426db3b6c3a31e985410a9c343479e778a072f19'],
    ['phone', '14155550134', '4155550134', '86a907bbd527b3622f86e7f6426db3b6c3a31e985410a9c343479e778a072f19'],
    ['phone', ' 415-555-0134 ', '4155550134', '86a907bbd527b3622f86e7f6426db3b6c3a31e985410a9c343479e778a072f19'],
    ['last_name', 'Łukasz-Østergård', 'lukaszostergard', '34e6db2d84638baf285ff9e46bfa5098f09e5661ca4cc5025cb591aaa5e965f5'],
    ['last_name', 'Wałęsa', 'walesa', 'e3adaaa10a32ccd11c0d2baa97f91a042c20e326682fa4dd42000fb2de01a7b5'],
    ['last_name', 'Æbelø', 'aebelo', '44f811ce0505ef474f4ab67a0af02753437f04dac3bdb25b6ed92e324aedaafc'],
    ['last_name', 'Mæhle', 'maehle', '1fa2edb40425fdff7c3043d6b5fe785add0b58693985b197157178fe70c8a00e'],
    ['last_name', 'Đorđević', 'dordevic', '0b4f1d636e3ab78c3518081bf36ff6f8d91f79b55129a9c7b66d14fca2bf16e8'],
    ['last_name', 'Ðóra', 'dora', '69db31976ead37b85cc42a49c95fd06eec99cfd9b7ff219a25c0f59cb4049343'],
    ['last_name', 'Eðvaldsson', 'edvaldsson', '2abfd3626b2db7874775e5768aed5248c929592c8ee53d4897303cadf020214c'],
    ['last_name', 'Þórsdóttir', 'thorsdottir', '52c590c0d688f92b56bc0f60baba4c6924c7b91b6c7ab65a92846fff19c624b7'],
    ['last_name', 'Hallþórsson', 'hallthorsson', '57e4f6d680b978a16a7847cd90f1bbe67ca9a73d3092a141b82fb0cb9d1014e7'],
    ['last_name', 'Straße', 'strasse', '16d96952087774fee069b7585d3991b24d90c181c09b2129b4908c35baa7f0c0'],
    ['last_name', 'STRAẞE', 'strasse', '16d96952087774fee069b7585d3991b24d90c181c09b2129b4908c35baa7f0c0'],
    ['last_name', 'Œuvre', 'oeuvre', '649ba70fc6d5ae51430ed4bd75aa4da27242105db74adada4b4db59b6c5ba36d'],
    ['last_name', 'Bœuf', 'boeuf', '9c0ed395dc2af34608210254d1f7828757bd750a86d02b63db177ec404d3dd01'],
    ['last_name', 'Yıldız', 'yildiz', '7b4b6db3e6e215d8563bc24cf5c129a0d20e86c3a9d9fcdbbeeed525f4db7a20'],
    ['last_name', 'İnan', 'inan', '7af2f48e5a81fba969f3653a7f987b09258b8573085406cf80741989daa79b61'],
    ['last_name', 'Ħal', 'hal', '232554cace01d13701a849d11b0a87083eef96befc90aa7a570f3d85cb149f0e'],
    ['last_name', 'Saħħa', 'sahha', '72996880caef1109c248066c35be445622eb0c05920f2fb190c38b5ee8663045'],
    ['last_name', 'Ŧest', 'test', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['last_name', 'Coŧ', 'cot', '29bb30173411b7826760083dcd719db4710f82665d26409bd4bdcfceea5bc647'],
    ['last_name', 'O’Brien', 'obrien', 'b4cb6cb33fe4b865868de825023a1e2790dc12ac01ecc8d7c5afe8254071c8ba'],
    ['last_name', "O'Brien", 'obrien', 'b4cb6cb33fe4b865868de825023a1e2790dc12ac01ecc8d7c5afe8254071c8ba'],
    ['last_name', 'García Márquez', 'garciamarquez', '10b290231e586d07c99cf73e94822ecc05d155a06cf4af89e9dffd7c0afa0526'],
    ['last_name', 'Muñoz', 'munoz', 'af3b1de946cda749b3df1be3cf568ff5677fd2a9967ae8453d72fd5c509d01d3'],
    ['last_name', 'Müller', 'muller', 'a8b1fc83cb92ad90b731937cf76116ef6c1aba436f8d0d0ec673e8d34022aca8'],
    ['last_name', 'Mu\u0308ller', 'muller', 'a8b1fc83cb92ad90b731937cf76116ef6c1aba436f8d0d0ec673e8d34022aca8'],
    ['last_name', 'van der Berg', 'vanderberg', 'aad607ca3121d5d843c2cd64e8c73c2a24fa3a4cb890ed8d40a1efa8af7a14d5'],
    ['last_name', 'Smith-Jones', 'smithjones', '6a77f47e3dec33252edbebb457d65e90501b643806c50cf8d6c3e2bd9cb74681'],
    ['last_name', 'St. John 3rd', 'stjohnrd', '54f370c449e98890480fd8de131ae86d5c9188da50dc3a3e6f94990e47bec849'],
    ['zip', '90210', '90210', 'b83c588da0c6931625f42e0948054a3ade722bfd02c27816305742ed7390ac6c'],
    ['zip', ' 02134 ', '02134', '1f75e2dac5b82521f112e293235aaeeb5dad684c5ede8469c1ec015b22bba44c'],
    ['zip', '90210-1234', '90210', 'b83c588da0c6931625f42e0948054a3ade722bfd02c27816305742ed7390ac6c'],
    ['zip', '902101234', '90210', 'b83c588da0c6931625f42e0948054a3ade722bfd02c27816305742ed7390ac6c'],
    ['dob', '1990-07-04', '1990-07-04', '1637d116c2ab4ddcb5f429166516f37639dce3f21ba372f3152b1231cfa210a2'],
    ['dob', '07/04/1990', '1990-07-04', '1637d116c2ab4ddcb5f429166516f37639dce3f21ba372f3152b1231cfa210a2'],
    ['dob', '7/4/1990', '1990-07-04', '1637d116c2ab4ddcb5f429166516f37639dce3f21ba372f3152b1231cfa210a2'],
    ['dob', ' 2000-02-29 ', '2000-02-29', 'ca1d2f9066774e9f799135abefe44a3f191fd67aa0a0dbd5dac7974f78eed56e'],
    ['dob', '02/29/2000', '2000-02-29', 'ca1d2f9066774e9f799135abefe44a3f191fd67aa0a0dbd5dac7974f78eed56e'],
    ['birth_year', '1990', '1990', 'a7be8e1fe282a37cd666e0632b17d933fa13f21addf4798fc0455bc166e2488c'],
    ['birth_year', ' 2007 ', '2007', 'f1cfa5ebb149e8099d561aae57beed6c68f990f45a910ea9d7b460dbcc5350be'],
    ['grad_year', '2008', '2008', 'e5e53c784d5d49de1cabb6e904bf3380026aadcb9769775a268dd304dd9aa2df'],
    ['grad_year', ' 2024 ', '2024', '6557739a67283a8de383fc5c0997fbec7c5721a46f28f3235fc9607598d9016b'],
    ['ip', '73.12.44.10', '73.12.44.10', '683c4b944d3e60031e7ad2ffc9f51fc9ba6e38cf2d64144785253288603e0c64'],
    ['ip', '73.12.44.10, 10.0.0.1', '73.12.44.10', '683c4b944d3e60031e7ad2ffc9f51fc9ba6e38cf2d64144785253288603e0c64'],
    ['ip', ' 073.012.044.010 ', '73.12.44.10', '683c4b944d3e60031e7ad2ffc9f51fc9ba6e38cf2d64144785253288603e0c64'],
    ['ip', '::ffff:73.12.44.10', '73.12.44.10', '683c4b944d3e60031e7ad2ffc9f51fc9ba6e38cf2d64144785253288603e0c64'],
    ['ip', '::FFFF:490C:2C0A', '73.12.44.10', '683c4b944d3e60031e7ad2ffc9f51fc9ba6e38cf2d64144785253288603e0c64'],
    [
      'ip',
      '2607:F8B0:4005:0805:0000:0000:0000:200E',
      '2607:f8b0:4005:805::200e',
      'e30a1b51ce4ba86ca11e2de99dea5d1dda9f35b5f7d0085f79f53dcd578ae938',
    ],
    [
      'ip',
      '[2607:f8b0:4005:805::200e], 73.12.44.10',
      '2607:f8b0:4005:805::200e',
      'e30a1b51ce4ba86ca11e2de99dea5d1dda9f35b5f7d0085f79f53dcd578ae938',
    ],
  ])('%s %j → %j', (key, raw, normalized, sha256) => {
    expect(normalizeKey(key, raw)).toBe(normalized);
    expect(hashOf(key, raw)).toBe(sha256);
  });

  it.each<[HashedKey, string]>([
    ['email', 'john.doe'],
    ['email', 'a@b@c.com'],
    ['email', '@example.com'],
    ['email', 'john@'],
    ['email', '+tag@gmail.com'],
    ['phone', '415-555-013'],
    ['phone', '24155550134'],
    ['phone', '415555013x'],
    ['last_name', ''],
    ['last_name', " -' ’"],
    ['last_name', '李'],
    ['zip', '9021'],
    ['zip', '90210-12'],
    ['zip', '90210 1234'],
    ['zip', 'ABCDE'],
    ['dob', '02/30/1990'],
    ['dob', '1990-02-30'],
    ['dob', '1900-02-29'],
    ['dob', '13/01/1990'],
    ['dob', '1990/07/04'],
    ['dob', '1990-7-4'],
    ['dob', '07/04/90'],
    ['birth_year', '90'],
    ['birth_year', '19901'],
    ['birth_year', 'abcd'],
    ['grad_year', '08'],
    ['grad_year', '2008.0'],
    ['ip', '1.2.3.256'],
    ['ip', 'not-an-ip'],
    ['ip', ''],
  ])('%s %j does not normalize', (key, raw) => {
    expect(normalizeKey(key, raw)).toBeUndefined();
    expect(hashOf(key, raw)).toBeUndefined();
  });

  it('sha256Hex hashes the UTF-8 bytes, lower-case hex', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('\u00e9')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c'); // bytes c3 a9
  });

  it('HASHED_KEYS lists the contract keys in order', () => {
    expect(HASHED_KEYS).toEqual(['email', 'phone', 'last_name', 'zip', 'dob', 'birth_year', 'grad_year', 'ip']);
  });
});

describe('dedupeKeysFromHashes', () => {
  it('builds email, phone and name_zip_dob in that order', () => {
    expect(
      dedupeKeysFromHashes(TEST_PERSON_KEY_SECRET, {
        dob: SHA.dob19900704,
        zip: SHA.zip90210,
        last_name: SHA.garciamarquez,
        phone: SHA.phone,
        email: SHA.gmail,
      }),
    ).toEqual([
      { type: 'email', hash: keyedPersonKey(TEST_PERSON_KEY_SECRET, SHA.gmail) },
      { type: 'phone', hash: keyedPersonKey(TEST_PERSON_KEY_SECRET, SHA.phone) },
      { type: 'name_zip_dob', hash: keyedPersonKey(TEST_PERSON_KEY_SECRET, SHA.nameZipDob) },
    ]);
  });

  it.each<[string, Partial<Record<HashedKey, string>>]>([
    ['without dob', { last_name: SHA.garciamarquez, zip: SHA.zip90210, birth_year: SHA.year1990 }],
    ['without zip', { last_name: SHA.garciamarquez, dob: SHA.dob19900704 }],
    ['without last_name', { zip: SHA.zip90210, dob: SHA.dob19900704 }],
  ])('makes no name_zip_dob key %s', (_label, hashes) => {
    expect(dedupeKeysFromHashes(TEST_PERSON_KEY_SECRET, hashes)).toEqual([]);
  });

  it('answers no keys for no hashes', () => {
    expect(dedupeKeysFromHashes(TEST_PERSON_KEY_SECRET, {})).toEqual([]);
  });
});

describe('leadHashes / leadDedupeKeys', () => {
  const asTyped: Lead = {
    personal: {
      first_name: 'José',
      last_name: 'García Márquez',
      email: 'John.Doe+leads@GoogleMail.com',
      phone: '+1 (415) 555-0134',
      date_of_birth: '1990-07-04',
    },
    address: { zip_code: '90210-1234', city: 'Beverly Hills' },
    education: { high_school_graduation_year: '2008' },
  };
  const reformatted: Lead = {
    personal: { last_name: 'GARCIA-MARQUEZ', email: ' johndoe@gmail.com ', phone: '4155550134', date_of_birth: '7/4/1990' },
    address: { zip_code: '90210' },
    education: { high_school_graduation_year: ' 2008 ' },
  };

  it('hashes every usable field, birth_year from the date of birth', () => {
    expect(leadHashes(asTyped)).toEqual({
      email: SHA.gmail,
      phone: SHA.phone,
      last_name: SHA.garciamarquez,
      zip: SHA.zip90210,
      dob: SHA.dob19900704,
      birth_year: SHA.year1990,
      grad_year: SHA.year2008,
    });
  });

  it('gives the same person formatted differently identical keys', () => {
    const expected = [
      { type: 'email', hash: keyedPersonKey(TEST_PERSON_KEY_SECRET, SHA.gmail) },
      { type: 'phone', hash: keyedPersonKey(TEST_PERSON_KEY_SECRET, SHA.phone) },
      { type: 'name_zip_dob', hash: keyedPersonKey(TEST_PERSON_KEY_SECRET, SHA.nameZipDob) },
    ];
    expect(leadDedupeKeys(TEST_PERSON_KEY_SECRET, asTyped)).toEqual(expected);
    expect(leadDedupeKeys(TEST_PERSON_KEY_SECRET, reformatted)).toEqual(expected);
    expect(leadHashes(reformatted)).toEqual(leadHashes(asTyped));
  });

  it('leaves out missing and unusable fields', () => {
    const lead: Lead = {
      personal: { email: 'not-an-email', last_name: 'García Márquez', date_of_birth: '02/30/1990' },
      address: { zip_code: '90210' },
    };
    expect(leadHashes(lead)).toEqual({ last_name: SHA.garciamarquez, zip: SHA.zip90210 });
    expect(leadDedupeKeys(TEST_PERSON_KEY_SECRET, lead)).toEqual([]);
  });

  it('answers nothing for an empty lead', () => {
    expect(leadHashes({})).toEqual({});
    expect(leadDedupeKeys(TEST_PERSON_KEY_SECRET, {})).toEqual([]);
  });

  it('makes the keys of every lead from exactly the hashes leadHashes gives (it hashes only what the keys use)', () => {
    const maybe = (values: string[]) => fc.option(fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 12 })), { nil: undefined });
    const lead = fc.record({
      personal: fc.record({
        email: maybe(['ada@example.com', ' A.d.a+x@GoogleMail.com ']),
        phone: maybe(['+1 (415) 555-0134', '4155550134']),
        last_name: maybe(['García Márquez', "O'Brien"]),
        date_of_birth: maybe(['1990-07-04', '7/4/1990', '02/30/1990']),
      }),
      address: fc.record({ zip_code: maybe(['90210-1234', '75001']) }),
      education: fc.record({ high_school_graduation_year: maybe(['2008']) }),
    });
    fc.assert(
      fc.property(lead, (l) =>
        expect(leadDedupeKeys(TEST_PERSON_KEY_SECRET, l as Lead)).toEqual(
          dedupeKeysFromHashes(TEST_PERSON_KEY_SECRET, leadHashes(l as Lead)),
        ),
      ),
    );
  });
});

describe('look-alike characters (docs/duplicates.md)', () => {
  const keysOf = (email: string, lastName: string) =>
    leadDedupeKeys(TEST_PERSON_KEY_SECRET, {
      personal: { email, last_name: lastName, date_of_birth: '1990-07-04' },
      address: { zip_code: '90210' },
    });
  const clean = keysOf('ada.lovelace@example.com', 'Lovelace');

  it.each([
    ['zero-width characters', 'ada\u200b.love\u200clace@exam\u200dple.com\ufeff', 'Love\u200blace\u00ad'],
    ['full-width letters', 'ａｄａ．ｌｏｖｅｌａｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ', 'Ｌｏｖｅｌａｃｅ'],
    ['Cyrillic look-alikes', 'аdа.lоvеlасе@ехаmрlе.соm', 'Lоvеlасе'],
    ['Greek look-alikes', 'αdα.lονеlαce@exαmple.com', 'Lονelαce'],
  ])('%s in a raw email and last name give the keys of the clean form', (_label, email, lastName) => {
    expect(keysOf(email, lastName)).toEqual(clean);
    expect(clean.map((k) => k.type)).toEqual(['email', 'name_zip_dob']);
  });

  it('folds before the contract normalization: gmail dots and +tag go after a zero-width space or a Cyrillic letter is gone', () => {
    expect(normalizeEmail('Ada.Lоve+promo\u200b@GMail.com')).toBe('adalove@gmail.com');
    expect(normalizeLastName('Gаrcía\u200b-Márquez')).toBe('garciamarquez');
  });

  it('leaves a name written in Cyrillic alone instead of turning it into Latin fragments', () => {
    expect(foldLookalikes('Орлова')).toBe('Орлова');
    expect(normalizeLastName('Орлова')).toBeUndefined();
  });

  it('changes no ASCII text, so what an affiliate hashes by the contract still matches', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary-ascii' }), (s) => expect(foldLookalikes(s)).toBe(s)));
  });
});
