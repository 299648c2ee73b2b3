/* libFuzzer harness: transaction-log replay (lib/regf log_*.c), the
 * recovery of a dirty hive, from memory: a primary image and up to three
 * logs (LOG1, LOG2, LOG) separated by FUZZ_SPLIT. A recovered image must
 * be a hive the reader opens, and not dirty (log.h). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz.h"
#include "regf/log.h"
#include "regf/regf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[RT_REGF_LOG_SLOTS] = {
        "fuzz.LOG1", "fuzz.LOG2", "fuzz.LOG"};
    const uint8_t *part[1 + RT_REGF_LOG_SLOTS];
    size_t len[1 + RT_REGF_LOG_SLOTS];
    size_t n = fuzz_split(data, size, part, len, 1 + RT_REGF_LOG_SLOTS);
    struct rt_regf_log_input logs[RT_REGF_LOG_SLOTS] = {{0}};
    for (size_t i = 1; i < n; i++)
        logs[i - 1] = (struct rt_regf_log_input){
            .name = names[i - 1], .data = part[i], .size = len[i]};

    uint8_t *image = NULL;
    size_t image_size = 0;
    struct rt_regf_replay_report rep;
    int r = rt_regf_replay(part[0], len[0], "fuzz", logs, &image,
                           &image_size, &rep);
    if (r == 0) {
        FUZZ_ASSERT(image != NULL);
        FUZZ_ASSERT(rep.status == RT_REGF_REPLAY_CLEAN ||
                    rep.status == RT_REGF_REPLAY_APPLIED);
        if (rep.status == RT_REGF_REPLAY_APPLIED) {
            struct rt_regf *h = NULL;
            char err[256];
            if (rt_regf_open_memory(image, image_size, 0, &h, err,
                                    sizeof err) == 0) {
                struct rt_regf_info info;
                rt_regf_get_info(h, &info);
                FUZZ_ASSERT(!info.dirty);
                rt_regf_close(h);
            }
        }
    }
    free(image);
    /* The report alone, as `regtool hive check` asks for it. */
    struct rt_regf_replay_report rep2;
    (void)rt_regf_replay(part[0], len[0], "fuzz", logs, NULL, NULL, &rep2);
    FUZZ_ASSERT(rep2.status == rep.status);
    rt_regf_replay_report_free(&rep);
    rt_regf_replay_report_free(&rep2);
    return 0;
}
