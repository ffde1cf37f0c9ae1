// The unit project's setup: jest-dom's matchers (toBeInTheDocument…), and Testing Library's waits
// (findBy…, waitFor) allowing for a shared machine that runs the browser tests beside the component
// tests, where its default 1 s was not always enough.
import '@testing-library/jest-dom/vitest';
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 5_000 });
