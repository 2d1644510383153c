/* nvtx_guest.c: how a good guest behaves. Two NVTX instances (this program's and the one in
 * libnvtx_peer.so, loaded with dlopen) share one domain "shared_domain" and must land in one
 * registry; errno is unchanged by every NVTX call, the first (which loads the tool) included.
 * Emits: main_range x1 (default domain), shared_domain:main_in_domain x2, and from the peer
 * shared_domain:peer_registered x4 and :peer_range x1. Prints "errno kept" or the failure;
 * exits 0 when errno was kept, 1 otherwise. Argument: path of libnvtx_peer.so. */
#include <dlfcn.h>
#include <errno.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>

static int bad;

static void check(const char *what)
{
	if (errno != EAGAIN) {
		printf("errno changed by %s: %d\n", what, errno);
		bad = 1;
	}
	errno = EAGAIN;
}

int main(int argc, char **argv)
{
	errno = EAGAIN;
	nvtxRangePushA("main_range");
	check("the first push");
	nvtxDomainHandle_t d = nvtxDomainCreateA("shared_domain");
	check("nvtxDomainCreateA");
	for (int i = 0; i < 2; i++) {
		nvtxEventAttributes_t a = {0};
		a.version = NVTX_VERSION;
		a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
		a.messageType = NVTX_MESSAGE_TYPE_ASCII;
		a.message.ascii = "main_in_domain";
		nvtxDomainRangePushEx(d, &a);
		check("nvtxDomainRangePushEx");
		nvtxDomainRangePop(d);
		check("nvtxDomainRangePop");
	}
	nvtxRangePop();
	check("nvtxRangePop");
	void *h = dlopen(argc > 1 ? argv[1] : "libnvtx_peer.so", RTLD_NOW);
	if (!h) {
		printf("cannot load the peer library: %s\n", dlerror());
		return 2;
	}
	void (*work)(void) = (void (*)(void))dlsym(h, "peer_work");
	errno = EAGAIN;
	work();
	check("the peer's NVTX calls");
	puts(bad ? "errno changed" : "errno kept");
	return bad;
}
