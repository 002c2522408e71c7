/**
 * The conformance kit against Stint's HTTP server over the in-memory store.
 */
import { MemoryStore } from "@stint/core"
import { HttpStack, Suite } from "@stint/conformance"

Suite.suite("memory (http)", HttpStack.inProcess(MemoryStore.layerMemory))
