/**
 * The conformance kit against the core's in-memory store, driven directly: the same call an adapter author writes.
 */
import { CoreStack, Suite } from "@stint/conformance"
import { MemoryStore } from "@stint/core"
import { backdoor } from "./support/MemoryBackdoor.js"

Suite.suite("memory (core)", CoreStack.make(MemoryStore.layerMemory, { backdoor }))
