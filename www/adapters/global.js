// The adapters as one global object, `FirstAssertAdapters`, for a page that runs them as a
// plain script (the tests load this bundle into a page or a VM; the hosts import what they use).

import { Adapters } from "./api.js";

globalThis.FirstAssertAdapters = globalThis.FirstAssertAdapters || Adapters;
