/*
 * nvtx_features: every other part of the NVTX C API, once each, in a fixed
 * order, so a test can assert exactly what a profiler recorded.
 *
 * Usage: nvtx_features
 *
 * Everything runs on the main thread. "Default" = the default (NULL) domain.
 *
 * Step | Call(s)                               | Domain   | Emitted
 * -----+---------------------------------------+----------+-------------------------------------------
 *  1   | nvtxDomainCreateA("mydomain")         | -        | domain "mydomain"
 *  2   | nvtxDomainCreateW(L"wdomain")         | -        | domain "wdomain" (wide name)
 *  3   | nvtxNameCategoryA(1, "cat_one")       | default  | category 1 = "cat_one"
 *  4   | nvtxDomainNameCategoryA(d, 2, ...)    | mydomain | category 2 = "dom_cat_two"
 *  5   | nvtxDomainRegisterStringA(d, ...)     | mydomain | registered string "registered_name"
 *  6   | nvtxDomainRangePushEx/Pop x3          | mydomain | push/pop "registered_name" x3
 *      |                                       |          |   (NVTX_MESSAGE_TYPE_REGISTERED), category 2,
 *      |                                       |          |   color 0xFFFF0000, no payload
 *  7   | nvtxDomainMarkEx x6                   | mydomain | marks, each color 0xFF0000FF, category 2:
 *      |                                       |          |   "mark_u64" uint64 7,  "mark_i64" int64 -7,
 *      |                                       |          |   "mark_f64" double 2.5, "mark_u32" uint32 8,
 *      |                                       |          |   "mark_i32" int32 -8,   "mark_f32" float 1.5
 *  8   | nvtxRangePushEx/nvtxRangePop x6       | default  | push/pop, each color 0xFF00FFFF, category 1:
 *      |                                       |          |   "push_u64" uint64 7,  "push_i64" int64 -7,
 *      |                                       |          |   "push_f64" double 2.5, "push_u32" uint32 8,
 *      |                                       |          |   "push_i32" int32 -8,   "push_f32" float 1.5
 *  9   | nvtxRangePushW(L"wide_r\u00e4nge")/Pop| default  | push/pop "wide_ränge" (U+00E4; UTF-8
 *      |                                       |          |   "wide_r\xc3\xa4nge") x1, wide message
 * 10   | nvtxMarkA("mark_a")                   | default  | mark "mark_a" x1
 * 11   | nvtxMarkW(L"mark_w")                  | default  | mark "mark_w" x1, wide message
 * 12   | nvtxDomainMarkEx(wd, ...)             | wdomain  | mark "wdomain_mark" x1, wide message
 *      |                                       |          |   (NVTX_MESSAGE_TYPE_UNICODE), no color/payload
 * 13   | nvtxDomainRangeStartEx/End            | mydomain | start/end "dom_startend" x1, color
 *      |                                       |          |   0xFF808080, category 2, int64 payload 99
 * 14   | nvtxRangePushEx/Pop                   | default  | push/pop "ex_push" x1, ASCII message,
 *      |                                       |          |   color 0xFFFFFF00, category 1, no payload
 * 15   | nvtxRangePushA x3 nested, Pop x3      | default  | push/pop "depth0" > "depth1" > "depth2"
 *      |                                       |          |   (depth 0,1,2), one each
 * 16   | nvtxDomainDestroy(d), (wd)            | -        | both domains destroyed
 *
 * Totals, default domain push/pop: push_* x6 (one each), "wide_ränge" 1,
 *   "ex_push" 1, depth0/1/2 1 each. Default-domain marks: mark_a, mark_w.
 * mydomain: "registered_name" push/pop x3, mark_* x6, "dom_startend" start/end x1.
 * wdomain: "wdomain_mark" mark x1.
 *
 * stdout: exactly one line, "push:%d %d %d pop:%d %d %d\n", with the return
 * values of the three nested pushes (step 15) and the three pops (innermost
 * first). Without a tool NVTX returns negative values (-2, i.e.
 * NVTX_NO_PUSH_POP_TRACKING); a correct tool gives "push:0 1 2 pop:2 1 0".
 * Exits 0.
 */
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <string.h>

static nvtxEventAttributes_t attr_base(uint32_t color, uint32_t category)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = category;
    if (color) {
        a.colorType = NVTX_COLOR_ARGB;
        a.color = color;
    }
    return a;
}

/* Fill payloads of all six types; index 0..5 in the order of the table. */
static void set_payload(nvtxEventAttributes_t *a, int which)
{
    switch (which) {
    case 0:
        a->payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
        a->payload.ullValue = 7;
        break;
    case 1:
        a->payloadType = NVTX_PAYLOAD_TYPE_INT64;
        a->payload.llValue = -7;
        break;
    case 2:
        a->payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
        a->payload.dValue = 2.5;
        break;
    case 3:
        a->payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
        a->payload.uiValue = 8;
        break;
    case 4:
        a->payloadType = NVTX_PAYLOAD_TYPE_INT32;
        a->payload.iValue = -8;
        break;
    default:
        a->payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
        a->payload.fValue = 1.5f;
        break;
    }
}

static const char *const suffix[6] = {"u64", "i64", "f64", "u32", "i32", "f32"};

int main(void)
{
    /* 1-2: domains */
    nvtxDomainHandle_t d = nvtxDomainCreateA("mydomain");
    nvtxDomainHandle_t wd = nvtxDomainCreateW(L"wdomain");

    /* 3-4: categories */
    nvtxNameCategoryA(1, "cat_one");
    nvtxDomainNameCategoryA(d, 2, "dom_cat_two");

    /* 5-6: registered string as a push/pop message */
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(d, "registered_name");
    for (int i = 0; i < 3; i++) {
        nvtxEventAttributes_t a = attr_base(0xFFFF0000u, 2);
        a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        a.message.registered = reg;
        nvtxDomainRangePushEx(d, &a);
        nvtxDomainRangePop(d);
    }

    /* 7: marks with every payload type */
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "mark_%s", suffix[i]);
        nvtxEventAttributes_t a = attr_base(0xFF0000FFu, 2);
        set_payload(&a, i);
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = name;
        nvtxDomainMarkEx(d, &a);
    }

    /* 8: pushes with every payload type */
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "push_%s", suffix[i]);
        nvtxEventAttributes_t a = attr_base(0xFF00FFFFu, 1);
        set_payload(&a, i);
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = name;
        nvtxRangePushEx(&a);
        nvtxRangePop();
    }

    /* 9-11: wide and plain messages */
    nvtxRangePushW(L"wide_r\u00e4nge");
    nvtxRangePop();
    nvtxMarkA("mark_a");
    nvtxMarkW(L"mark_w");

    /* 12: a wide-message mark in the wide-named domain */
    {
        nvtxEventAttributes_t a = attr_base(0, 0);
        a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
        a.message.unicode = L"wdomain_mark";
        nvtxDomainMarkEx(wd, &a);
    }

    /* 13: domain start/end */
    {
        nvtxEventAttributes_t a = attr_base(0xFF808080u, 2);
        a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
        a.payload.llValue = 99;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "dom_startend";
        nvtxRangeId_t id = nvtxDomainRangeStartEx(d, &a);
        nvtxDomainRangeEnd(d, id);
    }

    /* 14: default-domain PushEx with an ASCII message */
    {
        nvtxEventAttributes_t a = attr_base(0xFFFFFF00u, 1);
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "ex_push";
        nvtxRangePushEx(&a);
        nvtxRangePop();
    }

    /* 15: push/pop return values */
    int p0 = nvtxRangePushA("depth0");
    int p1 = nvtxRangePushA("depth1");
    int p2 = nvtxRangePushA("depth2");
    int q0 = nvtxRangePop();
    int q1 = nvtxRangePop();
    int q2 = nvtxRangePop();
    printf("push:%d %d %d pop:%d %d %d\n", p0, p1, p2, q0, q1, q2);

    /* 16 */
    nvtxDomainDestroy(d);
    nvtxDomainDestroy(wd);
    return 0;
}
