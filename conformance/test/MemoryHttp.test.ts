/**
 * The conformance kit against Stint's HTTP server over the in-memory store.
 */
import { HttpStack, Suite } from "@stint/conformance"
import { MemoryStore } from "@stint/core"
import { backdoor } from "./support/MemoryBackdoor.js"

Suite.suite("memory (http)", HttpStack.inProcess(MemoryStore.layerMemory, { backdoor }))
