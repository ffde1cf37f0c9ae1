/** Whether a file system call failed because the file (or a folder on its path) is not there: the one failure some callers expect. */
export const isMissingFile = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
