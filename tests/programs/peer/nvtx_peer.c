/* nvtx_peer.c: a shared library with its own NVTX3 instance (every object built with the
 * header-only NVTX3 has one), for nvtx_guest: both instances must reach one registry. */
#include <nvtx3/nvToolsExt.h>

void peer_work(void);

void peer_work(void)
{
	nvtxDomainHandle_t d = nvtxDomainCreateA("shared_domain");
	nvtxStringHandle_t s = nvtxDomainRegisterStringA(d, "peer_registered");
	nvtxEventAttributes_t a = {0};
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = s;
	for (int i = 0; i < 4; i++) {
		nvtxDomainRangePushEx(d, &a);
		nvtxDomainRangePop(d);
	}
	nvtxRangePushA("peer_range");
	nvtxRangePop();
}
