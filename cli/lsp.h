/* `qdc --lsp [FLAGS...]`: a language server on standard input and output (man/qdc-lsp.1). */
#ifndef QDC_LSP_H
#define QDC_LSP_H
/* Serves until `exit`; returns the exit status (0 after shutdown, 1 without). flags: qdc flags
 * every check of a document gets (after the project's .qdc-lsp); version: for serverInfo. */
int lsp_main(const char *version, int nflags, char **flags);
#endif
