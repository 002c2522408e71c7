/**
 * The conformance kit against the core's in-memory store, driven directly: the same call an adapter author writes.
 */
import { MemoryStore } from "@stint/core"
import { CoreStack, Suite } from "@stint/conformance"

Suite.suite("memory (core)", CoreStack.make(MemoryStore.layerMemory))
