/* tests/unit/test_outfile.c — util/outfile.h: the target appears whole or not
 * at all; planted links at temporary names and at the target are never
 * followed; folders, FIFOs and links to them are refused; character devices
 * are written straight and stay devices; a failing write (file size limit)
 * leaves the previous file byte for byte and no temporary; concurrent writers
 * leave one complete file. Checked against the file system itself (lstat,
 * readdir, the bytes read back). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/test.h"
#include "util/outfile.h"
#include "util/util.h"

static char dir[256];

static char *at(const char *name)
{
    static char p[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* The file's whole text ("" when missing). */
static char *slurp(const char *path)
{
    void *d = NULL;
    size_t n = 0;
    char err[256];
    if (rt_read_file(path, &d, &n, err, sizeof err))
        return xstrdup("");
    return d;
}

static int same_text(const char *path, const char *want)
{
    char *s = slurp(path);
    int ok = !strcmp(s, want);
    free(s);
    return ok;
}

/* Entries of dir (without . and ..), and whether one of them ends in ".tmp". */
static int entries(const char *d, int *tmps)
{
    DIR *h = opendir(d);
    struct dirent *e;
    int n = 0;
    *tmps = 0;
    while ((e = readdir(h))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        size_t l = strlen(e->d_name);
        *tmps += l > 4 && !strcmp(e->d_name + l - 4, ".tmp");
    }
    closedir(h);
    return n;
}

static mode_t kind(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) ? 0 : (sb.st_mode & S_IFMT);
}

static int write_text(const char *path, const char *text, char *err, size_t errlen)
{
    return outfile_write(path, text, strlen(text), 0, err, errlen);
}

static void test_new_and_replace(void)
{
    char err[512];
    int tmps;
    umask(022);
    CHECK(write_text(at("new.txt"), "hello\n", err, sizeof err) == 0, "%s", err);
    CHECK(same_text(at("new.txt"), "hello\n"), "content");
    struct stat sb;
    stat(at("new.txt"), &sb);
    CHECK((sb.st_mode & 0777) == 0644, "umask 022: mode %o", sb.st_mode & 0777);
    umask(077);
    CHECK(write_text(at("private.txt"), "x", err, sizeof err) == 0, "%s", err);
    stat(at("private.txt"), &sb);
    CHECK((sb.st_mode & 0777) == 0600, "umask 077: mode %o", sb.st_mode & 0777);
    umask(022);
    /* a replaced file keeps its permission bits */
    chmod(at("private.txt"), 0640);
    CHECK(write_text(at("private.txt"), "y", err, sizeof err) == 0, "%s", err);
    stat(at("private.txt"), &sb);
    CHECK((sb.st_mode & 0777) == 0640 && same_text(at("private.txt"), "y"), "kept mode %o",
          sb.st_mode & 0777);
    CHECK(entries(dir, &tmps) == 2 && tmps == 0, "two files, no temporary");
    /* through the stream, then abort: nothing new, nothing left */
    outfile *o;
    FILE *f;
    CHECK(outfile_open(at("new.txt"), &o, &f, err, sizeof err) == 0, "%s", err);
    CHECK(kind(outfile_tmp_path(o)) == S_IFREG, "temporary exists while writing");
    fputs("half", f);
    outfile_abort(o);
    CHECK(same_text(at("new.txt"), "hello\n"), "abort keeps the previous file");
    CHECK(entries(dir, &tmps) == 2 && tmps == 0, "abort removes the temporary");
    /* close with a writer's error: abort, the writer's status and message */
    CHECK(outfile_open(at("new.txt"), &o, &f, err, sizeof err) == 0, "%s", err);
    fputs("bad", f);
    snprintf(err, sizeof err, "writer says no");
    CHECK(outfile_close(o, RT_EFORMAT, err, sizeof err) == RT_EFORMAT &&
          !strcmp(err, "writer says no"), "close(rc) keeps rc and err: %s", err);
    CHECK(same_text(at("new.txt"), "hello\n"), "close(rc) keeps the previous file");
    CHECK(entries(dir, &tmps) == 2 && tmps == 0, "close(rc) removes the temporary");
    unlink(at("new.txt"));
    unlink(at("private.txt"));
}

/* Links planted at the names a temporary would take are skipped, never
 * followed: neither the victim nor a dangling link's target is written. */
static void test_planted_tmp_links(void)
{
    char err[512], name[256];
    int tmps;
    put(at("victim"), "victim\n");
    snprintf(name, sizeof name, "out.json.%ld-0.tmp", (long)getpid());
    CHECK(symlink("victim", at(name)) == 0, "plant 0");
    snprintf(name, sizeof name, "out.json.%ld-1.tmp", (long)getpid());
    CHECK(symlink("created", at(name)) == 0, "plant 1 (dangling)");
    put(at("out.json"), "old\n");
    outfile *o;
    FILE *f;
    CHECK(outfile_open(at("out.json"), &o, &f, err, sizeof err) == 0, "%s", err);
    snprintf(name, sizeof name, "out.json.%ld-2.tmp", (long)getpid());
    CHECK(o && !strcmp(outfile_tmp_path(o), at(name)), "third name taken: %s",
          o ? outfile_tmp_path(o) : "-");
    fputs("{}\n", f);
    CHECK(outfile_commit(o, err, sizeof err) == 0, "%s", err);
    CHECK(same_text(at("out.json"), "{}\n") && kind(at("out.json")) == S_IFREG, "target written");
    CHECK(same_text(at("victim"), "victim\n"), "victim untouched");
    CHECK(kind(at("created")) == 0, "dangling link's target not created");
    snprintf(name, sizeof name, "out.json.%ld-0.tmp", (long)getpid());
    CHECK(kind(at(name)) == S_IFLNK, "planted link still a link");
    CHECK(entries(dir, &tmps) == 4 && tmps == 2, "only the two planted names end in .tmp");
    unlink(at(name));
    snprintf(name, sizeof name, "out.json.%ld-1.tmp", (long)getpid());
    unlink(at(name));
    unlink(at("out.json"));
}

/* A link at the target is replaced as a link; its target is never written. */
static void test_target_link(void)
{
    char err[512];
    symlink("victim", at("link.md"));
    CHECK(write_text(at("link.md"), "report\n", err, sizeof err) == 0, "%s", err);
    CHECK(kind(at("link.md")) == S_IFREG && same_text(at("link.md"), "report\n"),
          "the link is now the file");
    CHECK(same_text(at("victim"), "victim\n"), "the link's target untouched");
    symlink("nowhere", at("dangling.md"));
    CHECK(write_text(at("dangling.md"), "r\n", err, sizeof err) == 0, "%s", err);
    CHECK(kind(at("dangling.md")) == S_IFREG && kind(at("nowhere")) == 0,
          "dangling link replaced, its target not created");
    unlink(at("link.md"));
    unlink(at("dangling.md"));
    unlink(at("victim"));
}

static void test_refused(void)
{
    char err[512];
    int tmps;
    outfile *o = (outfile *)1;
    FILE *f = (FILE *)1;
    mkdir(at("sub"), 0755);
    int rc = outfile_open(at("sub"), &o, &f, err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "folder") && !o && !f, "folder: %d %s", rc, err);
    mkfifo(at("fifo"), 0644);
    rc = write_text(at("fifo"), "x", err, sizeof err);  /* would block if opened */
    CHECK(rc == RT_EIO && strstr(err, "FIFO"), "fifo: %d %s", rc, err);
    CHECK(kind(at("fifo")) == S_IFIFO, "fifo still a fifo");
    symlink("sub", at("dirlink"));
    rc = write_text(at("dirlink"), "x", err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "link to a folder"), "link to folder: %d %s", rc, err);
    CHECK(kind(at("dirlink")) == S_IFLNK, "link to folder kept");
    rc = write_text(at("missing/x.txt"), "x", err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "missing/x.txt") && strstr(err, "No such file"),
          "missing folder: %d %s", rc, err);
    CHECK(entries(dir, &tmps) == 3 && tmps == 0, "nothing created");
    if (geteuid() != 0) {  /* root may write anything: access() says yes */
        put(at("ro.txt"), "ro\n");
        chmod(at("ro.txt"), 0444);
        rc = write_text(at("ro.txt"), "x", err, sizeof err);
        CHECK(rc == RT_EIO && same_text(at("ro.txt"), "ro\n"), "read-only: %d %s", rc, err);
        unlink(at("ro.txt"));
    }
    rmdir(at("sub"));
    unlink(at("fifo"));
    unlink(at("dirlink"));
}

/* A character device is written straight: it stays a device, no temporary
 * beside it. A private null device first (root may make one); /dev/null only
 * once that held, or when not root (who cannot replace it anyway). */
static void test_char_device(void)
{
    char err[512];
    int tmps, held = geteuid() != 0;
    if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        CHECK(write_text(at("null"), "x\n", err, sizeof err) == 0, "dir/null: %s", err);
        held = kind(at("null")) == S_IFCHR;
        CHECK(held, "private null still a character device");
        symlink("null", at("nulllink"));
        CHECK(write_text(at("nulllink"), "x\n", err, sizeof err) == 0, "link to null: %s", err);
        CHECK(kind(at("nulllink")) == S_IFLNK && kind(at("null")) == S_IFCHR,
              "link to a device written through, both kept");
        CHECK(entries(dir, &tmps) == 2 && tmps == 0, "no temporary beside the device");
        unlink(at("nulllink"));
        unlink(at("null"));
    } else {
        printf("skipped: mknod (%s)\n", strerror(errno));
    }
    if (held) {
        CHECK(write_text("/dev/null", "x\n", err, sizeof err) == 0, "/dev/null: %s", err);
        CHECK(kind("/dev/null") == S_IFCHR, "/dev/null still a character device");
    }
}

/* A write past RLIMIT_FSIZE (SIGXFSZ ignored: write returns EFBIG) fails the
 * commit; the previous file stays byte for byte, the temporary goes. */
static void test_failing_write(void)
{
    char err[512];
    int tmps;
    struct rlimit old, lim;
    size_t big = 1 << 20;
    char *data = xmalloc(big);
    memset(data, 'z', big);
    put(at("keep.csv"), "a,b\n1,2\n");
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 64 * 1024;
    setrlimit(RLIMIT_FSIZE, &lim);
    int rc = outfile_write(at("keep.csv"), data, big, 0, err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "file size limit") && !strstr(err, "memory"),
          "commit reports the limit: %d %s", rc, err);
    CHECK(same_text(at("keep.csv"), "a,b\n1,2\n"), "previous file intact");
    CHECK(entries(dir, &tmps) == 1 && tmps == 0, "temporary removed");
    /* a writer that stopped on the failed write: its cause replaces the message */
    outfile *o;
    FILE *f;
    CHECK(outfile_open(at("keep.csv"), &o, &f, err, sizeof err) == 0, "%s", err);
    int wrc = fwrite(data, 1, big, f) == big ? 0 : RT_EIO;
    snprintf(err, sizeof err, "cannot write the export");
    rc = outfile_close(o, wrc, err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "file size limit"), "close: %d %s", rc, err);
    CHECK(same_text(at("keep.csv"), "a,b\n1,2\n"), "previous file intact (close)");
    CHECK(entries(dir, &tmps) == 1 && tmps == 0, "temporary removed (close)");
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    unlink(at("keep.csv"));
    free(data);
}

/* Writers of one target at once, each file 256 KiB of one letter: every read
 * in between sees one whole file, and so does the end. */
static void test_concurrent(void)
{
    enum { WRITERS = 3, ROUNDS = 40, SIZE = 256 * 1024 };
    char err[512];
    int tmps;
    pid_t kids[WRITERS];
    for (int k = 0; k < WRITERS; k++) {
        if ((kids[k] = fork()) == 0) {
            char *buf = xmalloc(SIZE);
            memset(buf, 'a' + k, SIZE);
            int bad = 0;
            for (int r = 0; r < ROUNDS; r++)
                bad |= outfile_write(at("shared.bin"), buf, SIZE, OUTFILE_NOSYNC, err,
                                     sizeof err) != 0;
            _exit(bad);
        }
    }
    int torn = 0, reads = 0;
    for (int i = 0; i < 200; i++) {
        void *d = NULL;
        size_t n = 0;
        if (rt_read_file(at("shared.bin"), &d, &n, err, sizeof err))
            continue;  /* not there yet */
        reads++;
        const char *c = d;
        int whole = n == SIZE;
        for (size_t j = 1; whole && j < n; j++)
            whole = c[j] == c[0];
        torn += !whole;
        free(d);
    }
    int failed = 0;
    for (int k = 0; k < WRITERS; k++) {
        int st;
        waitpid(kids[k], &st, 0);
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    CHECK(failed == 0, "%d writers failed", failed);
    CHECK(torn == 0, "%d of %d reads saw a torn file", torn, reads);
    void *d = NULL;
    size_t n = 0;
    rt_read_file(at("shared.bin"), &d, &n, err, sizeof err);
    CHECK(n == SIZE && d && strspn(d, (char[]){ ((char *)d)[0], 0 }) == SIZE,
          "the last file is whole");
    free(d);
    CHECK(entries(dir, &tmps) == 1 && tmps == 0, "no temporary left");
    unlink(at("shared.bin"));
}

/* A name at NAME_MAX leaves no room for the suffix: the short name is used. */
static void test_long_name(void)
{
    char err[512], name[256];
    int tmps;
    memset(name, 'n', 255);
    name[255] = 0;
    CHECK(write_text(at(name), "long\n", err, sizeof err) == 0, "%s", err);
    CHECK(same_text(at(name), "long\n"), "long name written");
    CHECK(entries(dir, &tmps) == 1 && tmps == 0, "no temporary left");
    unlink(at(name));
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_outfile_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_new_and_replace();
    test_planted_tmp_links();
    test_target_link();
    test_refused();
    test_char_device();
    test_failing_write();
    test_concurrent();
    test_long_name();
    CHECK(outfile_commit(NULL, NULL, 0) == 0, "commit(NULL)");
    outfile_abort(NULL);
    rmdir(dir);
    TEST_END();
}
