/* SPDX-License-Identifier: GPL-2.0-only */
/* redact.h - what `watch --redact` leaves of strings a process chose before
 * they reach JSON, journald or text (issue 23 item 5): a training job's
 * command line carries tokens, keys and private paths, and the node's logs
 * are shipped to places its users never see.
 *
 * Two rules, both explicit so that an operator can predict them:
 *  - a command line keeps argv[0] and the launcher and NCCL arguments that
 *    explain a registration (python -m MODULE, torchrun/mpirun/srun/deepspeed
 *    process counts and placement, only when argv[0] is such a launcher:
 *    another program's -N or -n means anything; mpirun -x NCCL_*,
 *    NCCL_*=value; --mca NAME VALUE with VALUE masked when NAME names a
 *    secret); every run of other arguments becomes one REDACT_DROPPED;
 *  - in what is kept (and in any string given to redact_text), a word that
 *    looks like a credential is replaced by REDACT_MASK: the value of
 *    NAME=value or --name value when NAME says token, secret, pass (password,
 *    passphrase, -passin), key, auth, credential or cookie, also as a
 *    query's later parameter (?a=1&token=X) and as a JSON key
 *    ({"password":"X"}); user:password@ with or without a scheme; long hex
 *    runs; base64-like runs mixing digits and both cases (with '/' when it
 *    changes case as often as random text); AWS access key ids;
 *    GitHub/GitLab/Slack/Hugging Face/OpenAI-style tokens; JWTs.
 * The command line keeps nothing it was not told to keep, so a token the
 * patterns miss is dropped anyway unless it sits in a kept argument. */
#ifndef MRTRACE_CORE_REDACT_H
#define MRTRACE_CORE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#define REDACT_MASK "***"
#define REDACT_DROPPED "[redacted]"

/* Whether the n bytes at s, one word, look like a credential by their
 * shape alone (no NAME= around them). */
bool redact_secret_like(const char *s, size_t n);

/* Whether an option or variable name (leading dashes ignored, any case)
 * says that its value is a secret: "--token", "AWS_SECRET_ACCESS_KEY". */
bool redact_secret_name(const char *s, size_t n);

/* s (NUL-terminated, in a buffer of cap bytes) with every credential-like
 * word masked and everything else kept; words are separated by spaces. */
void redact_text(char *s, size_t cap);

/* s, a command line with its arguments separated by spaces (the context's
 * cmdline), reduced as said above, in place.  The result always fits cap
 * (cut at the end when the markers made it longer). */
void redact_cmdline(char *s, size_t cap);

#endif
