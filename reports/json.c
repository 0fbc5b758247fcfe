/* reports/json.c — `report -f json`: one run is the run document of
 * `show --json` (summary_json_doc, docs/json.md); a comparison is the
 * comparison document `compare --json` prints (cmp_doc_json, one writer). */
#include "reports/reports.h"
#include "util/util.h"

int report_json(const rep_doc *d, FILE *f)
{
    json_writer w;
    json_begin(&w, f);
    if (d->n == 1) {
        const report_run *r = &d->runs[0];
        summary_json_doc(&r->sum, r->outs, r->n_outs, &w);
        json_end(&w);
        return RT_OK;
    }
    compare_graph g;
    int have = cmp_doc_graph(d, 0, &g);
    cmp_json_opts o = { .gates = NULL, .graph = have ? &g : NULL };
    cmp_doc_json(d, &o, &w);
    json_end(&w);
    compare_graph_free(&g);
    return RT_OK;
}
