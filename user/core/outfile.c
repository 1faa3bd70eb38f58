// SPDX-License-Identifier: GPL-2.0-only
/* outfile.c - safe output streams (see outfile.h): a stdio stream on top of
 * fopencookie, so callers keep fprintf and the checks happen underneath.
 *
 * Length: just over the usual 500 lines: opening (owner, symlink, FIFO and
 * O_NONBLOCK checks) and writing (whole records, torn-record rollback, the
 * UTF-8 and control-character filter) share the stream's state. */
#include "core/outfile.h"
#include "core/escape.h"
#include "core/fscreds.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct outfile {
	FILE *f;
	int fd;
	bool is_stdout;
	enum outfile_kind kind;
	int err;               /* first errno of a failed write, 0 = none */
	char held[4];          /* a UTF-8 sequence cut by the end of a chunk */
	size_t nheld;
	bool need_nl;          /* the file ends in a torn line: end it first */
	char name[PATH_MAX];   /* for messages */
	char path[PATH_MAX];   /* to reopen by; "" for standard output that
				  is not a file opened for appending */
	struct outfile *next;
};

static struct outfile *open_files;   /* outfile_close finds the cookie by FILE */

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- writing -------------------------------------------------------------------- */

/* Writes n bytes; *done says how many reached the file, also on failure. */
static int write_all(struct outfile *o, const char *p, size_t n, size_t *done)
{
	*done = 0;
	while (n) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* a non-blocking descriptor we inherited: wait, do not drop */
			struct pollfd pf = { .fd = o->fd, .events = POLLOUT };
			if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		*done += (size_t)w;
	}
	return 0;
}

/* After a short write (a full disk: some bytes, then ENOSPC) the file
 * would end in half a record.  A regular file is cut back to where this
 * write began, when nothing was appended behind it meanwhile; whatever
 * stays torn (the cut failed, another writer) is ended by a newline before
 * the next record (need_nl), here or in the next run. */
static void undo_partial(struct outfile *o, size_t done)
{
	struct stat st;
	if (!done || fstat(o->fd, &st) || !S_ISREG(st.st_mode))
		return;
	off_t end = lseek(o->fd, 0, SEEK_CUR);   /* O_APPEND: just after our bytes */
	if (end >= (off_t)done && st.st_size == end && !ftruncate(o->fd, end - (off_t)done))
		return;
	o->need_nl = true;
}

/* Text: C0 controls but '\n' and '\t', DEL, C1 and invalid UTF-8 escaped. */
static size_t text_fix(const char *in, size_t n, char *out, size_t *held, bool final)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t w = 0, i = 0;
	*held = 0;
	while (i < n) {
		int l = utf8_seq(p + i, n - i);
		if (l < 0 && !final) {
			*held = n - i;
			break;
		}
		bool ctrl = l == 1 ? ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f)
				   : l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;
		if (l > 0 && !ctrl) {
			memcpy(out + w, p + i, (size_t)l);
			w += (size_t)l;
			i += (size_t)l;
			continue;
		}
		char one[8] = { 0 };
		memcpy(one, p + i, l > 0 ? (size_t)l : 1);
		char e[16];
		esc_text(one, e, sizeof(e));
		memcpy(out + w, e, strlen(e));
		w += strlen(e);
		i += l > 0 ? (size_t)l : 1;
	}
	return w;
}

/* Checks and writes one chunk (plus what the last one held back). */
static int emit(struct outfile *o, const char *buf, size_t n, bool final)
{
	size_t total = o->nheld + n;
	size_t outcap = total * 5 + 3;   /* every byte a 5-byte escape at worst, a newline */
	char stackbuf[4096];
	char *in = total + outcap <= sizeof(stackbuf) ? stackbuf : malloc(total + outcap);
	if (!in) {
		o->err = ENOMEM;
		return -1;
	}
	char *out = in + total;
	memcpy(in, o->held, o->nheld);
	memcpy(in + o->nheld, buf, n);
	size_t held, w;
	if (o->kind == OUTFILE_JSON)
		w = json_utf8_fix_chunk(in, total, out, outcap, &held, final);
	else
		w = text_fix(in, total, out, &held, final);
	memcpy(o->held, in + total - held, held);
	o->nheld = held;
	if (o->need_nl && w) {   /* outcap has room: the escapes never need all of it */
		memmove(out + 1, out, w);
		out[0] = '\n';
		w++;
	}
	size_t done;
	int rc = write_all(o, out, w, &done);
	if (rc)
		undo_partial(o, done);
	else if (w)
		o->need_nl = false;
	if (in != stackbuf)
		free(in);
	return rc;
}

static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
	struct outfile *o = c;
	if (o->err) {   /* the stream is broken: keep saying so */
		errno = o->err;
		return -1;
	}
	if (emit(o, buf, n, false)) {
		errno = o->err;
		return -1;
	}
	return (ssize_t)n;
}

static int cookie_close(void *c)
{
	struct outfile *o = c;
	if (!o->err && o->nheld)
		emit(o, "", 0, true);
	if (!o->is_stdout && close(o->fd) && !o->err)
		o->err = errno;   /* NFS reports write errors at close */
	o->fd = -1;
	return o->err ? -1 : 0;
}

/* ---- opening -------------------------------------------------------------------- */

static bool sticky_shared(const struct stat *d)
{
	return S_ISDIR(d->st_mode) && (d->st_mode & S_ISVTX) && (d->st_mode & S_IWOTH);
}

/* A symbolic link that neither we nor root made chose where the records go,
 * on behalf of its owner: the file is then opened with that owner's
 * filesystem rights (core/fscreds.h: its uid, the link's group, no
 * supplementary groups), so root appends only where the owner could have
 * written (a link planted in one's own directory to a root-only file is
 * refused, one to one's own log works, and a file it creates is theirs). */
struct link_owner {
	bool set;
	uid_t uid;
	gid_t gid;
	char link[PATH_MAX];   /* for messages */
};

static int note_link(struct link_owner *lo, const struct stat *l, const char *link,
		     const char *path, char *err, size_t len)
{
	if (l->st_uid == geteuid() || l->st_uid == 0)
		return 0;
	if (lo->set && lo->uid != l->st_uid)
		return fail(err, len, "refusing to write %s: the symbolic links %s (uid %u) and %s "
			    "(uid %u) on the way belong to two other users", path, lo->link,
			    (unsigned)lo->uid, link, (unsigned)l->st_uid);
	if (!lo->set) {
		lo->set = true;
		lo->uid = l->st_uid;
		lo->gid = l->st_gid;
		snprintf(lo->link, sizeof(lo->link), "%s", link);
	}
	return 0;
}

static int assume_owner(const struct link_owner *lo, struct fscreds_saved *saved)
{
	struct fscreds c = { .uid = lo->uid, .gid = lo->gid };
	memset(saved, 0, sizeof(*saved));
	return lo->set ? fscreds_assume(&c, saved) : 0;
}

/* Symlinks on the way to the file: one in a world-writable sticky directory
 * is trusted only when it belongs to us or to the directory's owner; one of
 * another user anywhere is noted in lo. */
static int check_components(const char *path, struct link_owner *lo, char *err, size_t len)
{
	char prefix[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof(prefix))
		return fail(err, len, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
	for (size_t i = 1; i < n; i++) {
		if (path[i] != '/' || path[i - 1] == '/')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		struct stat l, d;
		if (lstat(prefix, &l) || !S_ISLNK(l.st_mode))
			continue;
		char parent[PATH_MAX];
		memcpy(parent, prefix, i + 1);
		char *slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			snprintf(parent, sizeof(parent), ".");
		if (stat(parent, &d) == 0 && sticky_shared(&d) && l.st_uid != geteuid() &&
		    l.st_uid != d.st_uid)
			return fail(err, len, "refusing to write %s: %s is a symbolic link of uid %u in "
				    "the world-writable sticky directory %s (another user could have "
				    "planted it)", path, prefix, (unsigned)l.st_uid, parent);
		if (note_link(lo, &l, prefix, path, err, len))
			return -1;
	}
	return 0;
}

static int refuse_sticky_link(const char *path, const char *dir, char *err, size_t len)
{
	return fail(err, len, "refusing to write %s: it is a symbolic link in the world-writable "
		    "sticky directory %s (another user could have planted it); give a path of "
		    "your own", path, dir);
}

static int refuse_theirs(const char *path, const struct stat *fs, const char *dir, char *err,
			 size_t len)
{
	return fail(err, len, "refusing to write %s: it belongs to uid %u and lies in the "
		    "world-writable sticky directory %s (another user could have planted it)",
		    path, (unsigned)fs->st_uid, dir);
}

/* Opens base in dfd: with the rights of lo's owner when a link of another
 * user leads there.  fd, or -1 with errno. */
static int open_as(int dfd, const char *base, int flags, const struct link_owner *lo)
{
	struct fscreds_saved saved;
	int r = assume_owner(lo, &saved);
	if (r) {
		errno = -r;
		return -1;
	}
	int fd = openat(dfd, base, flags, 0666);
	int e = errno;
	fscreds_restore(&saved);
	errno = e;
	return fd;
}

/* Set by the unit tests: runs between the checks by name and the opens, to
 * swap a component for a symbolic link exactly there. */
void (*outfile_test_between)(void);

/* The directory, opened one component at a time (from "/" or the working
 * directory) and never by its whole name: a component is followed only if
 * it is a symbolic link that passes the checks at that moment (in a
 * world-writable sticky directory only ours or the directory owner's; of
 * another user: noted in lo); any other is opened with O_NOFOLLOW, so a
 * directory swapped for a link after check_components looked (lstat, then
 * a path open, was a window) is never followed.  With the rights of lo's
 * owner when a link of another user leads there.  fd; -1 with errno; -2
 * when a component became a link under us (look again); -3 refused (err
 * says why). */
static int walk_dir(const char *dir, const char *path, struct link_owner *lo, char *err,
		    size_t len)
{
	char copy[PATH_MAX], at[PATH_MAX] = "";
	snprintf(copy, sizeof(copy), "%s", dir);
	int fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL;
	for (char *name = strtok_r(copy, "/", &save); fd >= 0 && name;
	     name = strtok_r(NULL, "/", &save)) {
		size_t n = strlen(at);
		snprintf(at + n, sizeof(at) - n, "%s%s", n || dir[0] == '/' ? "/" : "", name);
		struct stat l, d;
		bool link = !fstatat(fd, name, &l, AT_SYMLINK_NOFOLLOW) && S_ISLNK(l.st_mode);
		if (link && !fstat(fd, &d) && sticky_shared(&d) && l.st_uid != geteuid() &&
		    l.st_uid != d.st_uid) {
			close(fd);
			fail(err, len, "refusing to write %s: %s is a symbolic link of uid %u "
				    "in the world-writable sticky directory (another user could have "
				    "planted it)", path, at, (unsigned)l.st_uid);
			return -3;
		}
		if (link && note_link(lo, &l, at, path, err, len)) {
			close(fd);
			return -3;
		}
		int nfd = open_as(fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC | (link ? 0 : O_NOFOLLOW),
				  lo);
		int e = errno;
		bool became = nfd < 0 && !link && (e == ELOOP || e == ENOTDIR) &&
			      !fstatat(fd, name, &l, AT_SYMLINK_NOFOLLOW) && S_ISLNK(l.st_mode);
		close(fd);
		if (became)
			return -2;
		fd = nfd;
		errno = e;
	}
	return fd;
}

/* One attempt; 1 means "the name became a symlink under us, look again". */
static int open_once(const char *path, const char *dir, const char *base, char *err,
		     size_t len)
{
	struct link_owner lo = { 0 };
	if (check_components(path, &lo, err, len))
		return -1;
	if (outfile_test_between)
		outfile_test_between();
	/* the directory as the links' owner would reach it, too */
	int dfd = walk_dir(dir, path, &lo, err, len);
	if (dfd == -2)
		return 1;
	if (dfd == -3)
		return -1;
	struct stat ds, ls, fs;
	if (dfd < 0 || fstat(dfd, &ds)) {
		int e = errno;
		if (dfd >= 0)
			close(dfd);
		if (lo.set && (e == EACCES || e == EPERM))
			return fail(err, len, "refusing to write %s: it leads through the symbolic "
				    "link %s of uid %u, who may not go there (opened with that user's "
				    "rights: %s)", path, lo.link, (unsigned)lo.uid, strerror(e));
		return fail(err, len, "cannot write %s: %s", path, strerror(e));
	}
	bool shared = sticky_shared(&ds);
	bool is_link = !fstatat(dfd, base, &ls, AT_SYMLINK_NOFOLLOW) && S_ISLNK(ls.st_mode);
	if (shared && is_link) {
		close(dfd);
		return refuse_sticky_link(path, dir, err, len);
	}
	if (is_link && note_link(&lo, &ls, path, path, err, len)) {
		close(dfd);
		return -1;
	}
	/* O_NONBLOCK: a FIFO with no reader (planted, or just early) fails with
	 * ENXIO instead of holding watch in open(2) before the checks below.
	 * A name that was no symlink a moment ago is not followed should it
	 * have become one (ELOOP: looked at again). */
	int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		    (is_link ? 0 : O_NOFOLLOW);
	int fd = open_as(dfd, base, flags, &lo);
	int e = errno;
	if (fd < 0 && e == ELOOP && !is_link) {
		close(dfd);
		return 1;
	}
	if (fd < 0 && e == ENXIO) {   /* a FIFO nobody reads: whose is it? */
		bool theirs = shared && !fstatat(dfd, base, &fs, AT_SYMLINK_NOFOLLOW) &&
			      fs.st_uid != geteuid() && fs.st_uid != ds.st_uid;
		close(dfd);
		if (theirs)
			return refuse_theirs(path, &fs, dir, err, len);
		return fail(err, len, "cannot write %s: a FIFO with no reader (mrtrace does not "
			    "wait for one: start the reader first)", path);
	}
	close(dfd);
	if (fd < 0 && lo.set && (e == EACCES || e == EPERM || e == EROFS))
		return fail(err, len, "refusing to write %s: it leads through the symbolic link %s "
			    "of uid %u, who may not write there (opened with that user's rights: "
			    "%s)", path, lo.link, (unsigned)lo.uid, strerror(e));
	if (fd < 0)
		return fail(err, len, "cannot write %s: %s", path, strerror(e));
	if (fstat(fd, &fs) == 0 && shared && fs.st_uid != geteuid() && fs.st_uid != ds.st_uid) {
		close(fd);
		return refuse_theirs(path, &fs, dir, err, len);
	}
	/* a second name of a file is no file of ours to append to: with
	 * fs.protected_hardlinks=0 anyone may link a root-owned file into a
	 * directory we write to */
	if (fstat(fd, &fs) == 0 && S_ISREG(fs.st_mode) && fs.st_nlink > 1) {
		close(fd);
		return fail(err, len, "refusing to write %s: it is a hard link (%lu names; another "
			    "user could have linked a file of someone else there)", path,
			    (unsigned long)fs.st_nlink);
	}
	/* the records block as they always did (a pipe's reader sets the pace) */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static int open_path(const char *path, char *err, size_t len)
{
	char dir[PATH_MAX];
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return fail(err, len, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
	char *slash = strrchr(dir, '/');
	const char *base = path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else {
		base = path + (slash - dir) + 1;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!*base)
		return fail(err, len, "cannot write %s: %s", path, strerror(EISDIR));
	for (int i = 0; i < 3; i++) {
		int fd = open_once(path, dir, base, err, len);
		if (fd != 1)
			return fd;
	}
	return fail(err, len, "refusing to write %s: it keeps turning into a symbolic link",
		    path);
}

/* Whether a regular file ends in a line without its newline (a record torn
 * by a crash or a full disk): the next record must not be glued to it.
 * Read through a descriptor of our own (ours is write-only); a file we may
 * not read is taken as whole. */
static bool torn_tail(int fd)
{
	struct stat st, rs;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0)
		return false;
	char self[64], c = '\n';
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	int rfd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (rfd < 0)
		return false;
	if (!fstat(rfd, &rs) && rs.st_ino == st.st_ino && rs.st_dev == st.st_dev &&
	    rs.st_size > 0 && pread(rfd, &c, 1, rs.st_size - 1) != 1)
		c = '\n';
	close(rfd);
	return c != '\n';
}

/* Standard output appending to a regular file (systemd's StandardOutput=
 * append:, a shell's >>) is a log file like -o FILE: its name, taken now,
 * before any rotation renames it, so that SIGHUP reopens it by that name
 * (logrotate's create mode).  Anything else (a terminal, a pipe, a file
 * opened for truncation) leaves path "": nothing to reopen. */
static void stdout_append_path(char *path, size_t len)
{
	struct stat st;
	int fl = fcntl(STDOUT_FILENO, F_GETFL);
	path[0] = '\0';
	if (fl < 0 || !(fl & O_APPEND) || fstat(STDOUT_FILENO, &st) || !S_ISREG(st.st_mode))
		return;
	ssize_t n = readlink("/proc/self/fd/1", path, len - 1);
	path[n > 0 ? n : 0] = '\0';
	/* only an absolute name that still is this very file */
	struct stat now;
	if (n <= 0 || path[0] != '/' || stat(path, &now) || now.st_ino != st.st_ino ||
	    now.st_dev != st.st_dev)
		path[0] = '\0';
}

FILE *outfile_open(const char *path, enum outfile_kind kind, char *err, size_t errlen)
{
	bool std = !path || !strcmp(path, "-");
	int fd = std ? STDOUT_FILENO : open_path(path, err, errlen);
	if (fd < 0)
		return NULL;
	struct outfile *o = calloc(1, sizeof(*o));
	if (!o) {
		if (!std)
			close(fd);
		fail(err, errlen, "out of memory");
		return NULL;
	}
	o->fd = fd;
	o->is_stdout = std;
	o->kind = kind;
	o->need_nl = torn_tail(fd);   /* also standard output appending to a file (systemd) */
	snprintf(o->name, sizeof(o->name), "%s", std ? "standard output" : path);
	if (!std)
		snprintf(o->path, sizeof(o->path), "%s", path);
	else
		stdout_append_path(o->path, sizeof(o->path));
	if (std)
		fflush(stdout);   /* what stdio holds for fd 1 goes first */
	cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };
	o->f = fopencookie(o, "w", io);
	if (!o->f) {
		if (!std)
			close(fd);
		free(o);
		fail(err, errlen, "out of memory");
		return NULL;
	}
	o->next = open_files;
	open_files = o;
	return o->f;
}

static struct outfile *find(FILE *f)
{
	for (struct outfile *o = open_files; o; o = o->next)
		if (o->f == f)
			return o;
	return NULL;
}

int outfile_failed(FILE *f)
{
	struct outfile *o = find(f);
	return ferror(f) || (o && o->err);
}

int outfile_record(FILE *f, const char *buf, size_t len)
{
	struct outfile *o = find(f);
	if (!o)   /* a plain stream: no promise beyond stdio's */
		return fwrite(buf, 1, len, f) == len && !fflush(f) ? 0 : -1;
	if (fflush(f) || o->err)
		return -1;
	/* straight to emit(): stdio would cut a record longer than its buffer */
	return emit(o, buf, len, false);
}

int outfile_reopen(FILE *f, char *err, size_t errlen)
{
	struct outfile *o = find(f);
	if (!o || !o->path[0])
		return 0;
	fflush(f);   /* what was written before the signal goes to the old file */
	char why[PATH_MAX + 256];
	int fd = open_path(o->path, why, sizeof(why));
	if (fd < 0)
		return fail(err, errlen, "cannot reopen: %s; the records keep going to the old file", why);
	if (o->is_stdout) {
		/* the new file becomes descriptor 1 itself: whatever else writes
		 * to standard output follows the records */
		int r = dup2(fd, STDOUT_FILENO);
		int e = errno;
		close(fd);
		if (r < 0)
			return fail(err, errlen, "cannot reopen %s: %s; the records keep going to the "
				    "old file", o->path, strerror(e));
		fd = STDOUT_FILENO;
	} else if (close(o->fd) && !o->err) {
		o->err = errno;   /* a write the old file lost, reported at close */
	}
	o->fd = fd;
	o->need_nl = torn_tail(fd);
	return 0;
}

int outfile_close(FILE *f, char *err, size_t errlen)
{
	struct outfile *o = find(f);
	if (!o) {   /* not ours: a plain stream */
		int bad = fflush(f) || ferror(f);
		return bad ? fail(err, errlen, "write error: %s", strerror(errno)) : 0;
	}
	int flushed = fflush(f);
	int bad_stream = ferror(f);
	int closed = fclose(f);
	for (struct outfile **pp = &open_files; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	int e = o->err ? o->err : (flushed || bad_stream || closed) ? EIO : 0;
	if (e)
		fail(err, errlen, "writing %s: %s", o->name, strerror(e));
	free(o);
	return e ? -1 : 0;
}
