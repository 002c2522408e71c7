/**
 * `/docs` renders in a real headless browser (the Chromium that the `@sparticuz/chromium` npm package ships, driven by
 * playwright-core; see `testing/Chromium.ts`) from the served page alone:
 * the seven operations with method, path, scope, parameters, bodies, responses and error codes, and not one request
 * leaves the server (the page is self-contained).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Docs, OpenApiDocument } from "@stint/http"
import type { Browser } from "playwright-core"
import * as Chromium from "../../../testing/Chromium.js"
import { stores, withServer } from "./ServerHarness.js"

const operations = [
  ["listClients", "GET", "/api/v1/clients", "clients:read"],
  ["listProjects", "GET", "/api/v1/projects", "projects:read"],
  ["createProject", "POST", "/api/v1/projects", "projects:write"],
  ["getActiveTimer", "GET", "/api/v1/timer", "timers:read"],
  ["startTimer", "POST", "/api/v1/timers/start", "timers:write"],
  ["stopTimer", "POST", "/api/v1/timers/{timerId}/stop", "timers:write"],
  ["listTimeEntries", "GET", "/api/v1/time-entries", "timers:read"]
] as const

let browser: Browser

beforeAll(async () => {
  browser = await Chromium.launch()
})

afterAll(async () => {
  await browser.close()
})

describe("/docs", () => {
  it("is rendered from the served OpenAPI document", () => {
    expect(Docs.html).toBe(Docs.render(OpenApiDocument.document))
    for (const [name] of operations) expect(Docs.html).toContain(`data-operation="${name}"`)
  })

  const store = stores[0]
  if (store === undefined) throw new Error("no store")

  it("shows the seven operations in a headless browser, with nothing loaded from elsewhere", () =>
    withServer(store)(async (h) => {
      const page = await browser.newPage()
      const origin = `http://127.0.0.1:${h.port}`
      const requested: Array<string> = []
      page.on("request", (request) => requested.push(request.url()))
      const failures: Array<string> = []
      page.on("console", (message) => {
        if (message.type() === "error") failures.push(message.text())
      })
      page.on("pageerror", (error) => failures.push(error.message))
      const response = await page.goto(`${origin}/docs`, { waitUntil: "load" })
      expect(response?.status()).toBe(200)
      expect(await page.title()).toBe("Stint API 1.0.0 reference")

      const sections = page.locator("section.operation")
      expect(await sections.count()).toBe(7)
      for (const [name, method, path, scope] of operations) {
        const section = page.locator(`section[data-operation="${name}"]`)
        expect(await section.isVisible()).toBe(true)
        const heading = await section.locator("h2").innerText()
        expect(heading).toContain(method)
        expect(heading).toContain(path)
        expect(await section.locator("code.scope").innerText()).toBe(scope)
        for (const title of ["Parameters", "Request body", "Responses"]) {
          expect(await section.locator("h3", { hasText: title }).isVisible()).toBe(true)
        }
      }
      const text = (name: string) => page.locator(`section[data-operation="${name}"]`).innerText()
      expect(await text("stopTimer")).toMatch(/TIMER_VOIDED[\s\S]*TIMER_ALREADY_STOPPED/)
      expect(await text("stopTimer")).toContain("Idempotency-Key")
      expect(await text("stopTimer")).toContain("timerId")
      expect(await text("createProject")).toContain("201")
      expect(await text("createProject")).toContain("CreateProjectRequest")
      expect(await text("createProject")).toContain("FORBIDDEN")
      expect(await text("listTimeEntries")).toMatch(/cursor[\s\S]*limit/)
      expect(await text("listTimeEntries")).toContain("INVALID_CURSOR")
      expect(await text("startTimer")).toContain("Idempotent-Replayed")
      expect(await page.locator("#schema-Timer").innerText()).toContain("elapsedSeconds")

      await page.locator("nav a", { hasText: "/api/v1/time-entries" }).click()
      expect(page.url()).toBe(`${origin}/docs#op-listTimeEntries`)

      expect(requested.every((url) => url.startsWith(`${origin}/docs`))).toBe(true)
      expect(failures).toEqual([])
      await page.close()
    }))
})
