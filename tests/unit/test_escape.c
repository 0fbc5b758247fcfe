/* tests/unit/test_escape.c — util/escape.c against outputs written out by
 * hand from each format's rules (util/escape.h), one hostile input at a time;
 * and the buffer contract: the full length returned, a cut never splits an
 * escape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test.h"
#include "util/escape.h"

static void expect(int format, const char *in, const char *want)
{
    char got[512];
    size_t n = esc_buf(format, in, got, sizeof(got));
    CHECK(n == strlen(want) && !strcmp(got, want), "format %d of \"%s\": got \"%s\" (%zu), want \"%s\"",
          format, in ? in : "(null)", got, n, want);
    /* the stream and the printf forms write the same */
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    CHECK(esc_fput(f, format, in) == 0, "esc_fput");
    fclose(f);
    CHECK(!strcmp(mem, want), "esc_fput of \"%s\": \"%s\"", in ? in : "(null)", mem);
    free(mem);
    CHECK(!strcmp(esc_tmp(format, in), want), "esc_tmp of \"%s\"", in ? in : "(null)");
}

int main(void)
{
    /* terminal: controls visible, UTF-8 passes, C1 / bidi / bad bytes visible */
    expect(ESC_TERM, "plain name/conv_1.2", "plain name/conv_1.2");
    expect(ESC_TERM, "a\x1b[2Jb\x07", "a\\x1b[2Jb\\x07");
    expect(ESC_TERM, "l1\nl2\tx\r\x7f", "l1\\x0al2\\x09x\\x0d\\x7f");
    expect(ESC_TERM, "caf\xc3\xa9 \xe2\x80\x94 \xe6\xa8\xa1", "caf\xc3\xa9 \xe2\x80\x94 \xe6\xa8\xa1");
    expect(ESC_TERM, "c1\xc2\x9b" "31m", "c1\\u009b31m");               /* U+009B: CSI */
    expect(ESC_TERM, "ab\xe2\x80\xae" "cd", "ab\\u202ecd");               /* RLO */
    expect(ESC_TERM, "x\xff\xc3(y\xe0\x80\xaf", "x\\xff\\xc3(y\\xe0\\x80\\xaf"); /* bad, cut, overlong */
    expect(ESC_TERM, "`$(id)` '\"\\", "`$(id)` '\"\\");
    expect(ESC_TERM, NULL, "");
    expect(ESC_TERM_LINES, "one\n\ttwo\x1b[0m\r", "one\n\ttwo\\x1b[0m\\x0d");

    /* gnuplot: no ` or @ byte survives; " and \ escaped; controls as text */
    expect(ESC_GNUPLOT, "run #3 base", "\"run #3 base\"");
    expect(ESC_GNUPLOT, "x`touch S`", "\"x\\140touch S\\140\"");
    expect(ESC_GNUPLOT, "a\"b\\c@m", "\"a\\\"b\\\\c\\100m\"");
    expect(ESC_GNUPLOT, "n\nl\x1b", "\"n l\\\\x1b\"");
    expect(ESC_GNUPLOT, "$(id) 'q'", "\"$(id) 'q'\"");
    expect(ESC_GNUPLOT, NULL, "\"\"");

    /* a gnuplot data field: one column, no comment, no quote */
    expect(ESC_GNUPLOT_DAT, "conv_1/out:0", "conv_1/out:0");
    expect(ESC_GNUPLOT_DAT, "a b\t#c\"d'e`f@g\\h?\n", "a_b__c_d_e_f_g_h__");
    expect(ESC_GNUPLOT_DAT, "", "_");
    expect(ESC_GNUPLOT_DAT, "\xc3\xa9\xff\xc2\x85", "\xc3\xa9__");

    /* CSV: RFC 4180 quoting, a ' before what a spreadsheet would evaluate */
    expect(ESC_CSV, "conv1", "conv1");
    expect(ESC_CSV, "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0");
    expect(ESC_CSV, "+1", "'+1");
    expect(ESC_CSV, "-2", "'-2");
    expect(ESC_CSV, "@SUM(A1)", "'@SUM(A1)");
    expect(ESC_CSV, "\tx", "'\tx");
    expect(ESC_CSV, "\rx", "\"'\rx\"");
    expect(ESC_CSV, "'quoted", "''quoted");
    expect(ESC_CSV, "a,b", "\"a,b\"");
    expect(ESC_CSV, "=a,\"b\"\n", "\"'=a,\"\"b\"\"\n\"");
    expect(ESC_CSV, "x=1-2", "x=1-2");
    expect(ESC_CSV, "", "");
    expect(ESC_CSV, NULL, "");

    /* Markdown: one line, no markup */
    expect(ESC_MD, "conv 1.2", "conv 1.2");
    expect(ESC_MD, "a|b\\c`d*e_f[g]h<i>j#k", "a\\|b\\\\c\\`d\\*e_f\\[g\\]h\\<i\\>j\\#k");
    expect(ESC_MD, "_x_ a_ _b c__d conv_1_out", "\\_x\\_ a\\_ \\_b c\\_\\_d conv_1_out");
    expect(ESC_MD, "x\ny\r\tz\x1b[2J\x07", "x y  z\\x1b\\[2J\\x07");
    expect(ESC_MD, "<script>alert(1)</script>", "\\<script\\>alert(1)\\</script\\>");

    /* HTML: entities, one line, controls visible */
    expect(ESC_HTML, "a&b<c>d\"e'f", "a&amp;b&lt;c&gt;d&quot;e&#39;f");
    expect(ESC_HTML, "<script>x</script>", "&lt;script&gt;x&lt;/script&gt;");
    expect(ESC_HTML, "l\nm\x1b\xc2\x9f", "l m\\x1b\\u009f");

    /* JSON: util/json.c's string */
    expect(ESC_JSON, "a\"\\\n\x1b", "\"a\\\"\\\\\\n\\u001b\"");
    expect(ESC_JSON, NULL, "null");

    /* buffers: the full length, cut before an escape that does not fit */
    char b[8];
    CHECK(esc_buf(ESC_TERM, "abcd\x1bxyz", b, sizeof(b)) == 11 && !strcmp(b, "abcd"), "cut: %s", b);
    CHECK(esc_buf(ESC_TERM, "abcdefghij", b, sizeof(b)) == 10 && !strcmp(b, "abcdefg"), "cut run: %s", b);
    CHECK(esc_buf(ESC_MD, "ab|cdef", b, 5) == 8 && !strcmp(b, "ab\\|"), "md cut: %s", b);
    CHECK(esc_buf(ESC_HTML, "<<", NULL, 0) == 8, "count only");
    /* sixteen live results in one call */
    const char *t[16];
    char want[16][8];
    for (int i = 0; i < 16; i++) {
        char in[8];
        snprintf(in, sizeof(in), "%c\x1b", 'a' + i);
        snprintf(want[i], sizeof(want[i]), "%c\\x1b", 'a' + i);
        t[i] = esc_tmp(ESC_TERM, in);
    }
    for (int i = 0; i < 16; i++)
        CHECK(!strcmp(t[i], want[i]), "ring %d: %s", i, t[i]);
    TEST_END();
}
