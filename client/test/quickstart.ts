import { StintClient } from "@stint/client"

const baseUrl = process.env.STINT_URL ?? "http://127.0.0.1:8787" // where `npm start` serves
const stint = new StintClient({ baseUrl, apiKey: process.env.STINT_API_KEY ?? "" })
const [client] = (await stint.listClients()).clients
const [project] = client ? (await stint.listProjects(client.id)).projects : []
if (!project) throw new Error("no project to track yet")
const { timer } = await stint.startTimer({ projectId: project.id, note: "Trying Stint" })
console.log(`tracking ${timer?.projectName} since ${timer?.startedAt}`)
for await (const entry of stint.timeEntries()) console.log(entry.startedAt, entry.projectName, entry.status)
