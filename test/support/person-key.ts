import { DEVELOPMENT_PERSON_KEY_SECRET } from '../../libs/config/src/development-secrets';
import { personKeySecret } from '../../libs/domain/src/normalize/person-key';

/**
 * The person key secret of every test process: the development one, as the
 * apps under test and the migrations read it (their environment sets no
 * PERSON_KEY_SECRET), so a key a test builds is the key they store.
 */
export const TEST_PERSON_KEY_SECRET = personKeySecret(DEVELOPMENT_PERSON_KEY_SECRET);
