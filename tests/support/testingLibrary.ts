// The unit project's setup: Testing Library's waits (findBy…, waitFor) allow for a shared machine
// that runs the browser tests beside the component tests, where its default 1 s was not always enough.
import { configure } from '@testing-library/preact';

configure({ asyncUtilTimeout: 5_000 });
