import type {
  AskBody,
  EntitiesResponse,
  FactsResponse,
  GraphResponse,
  ListResponse,
  MemoryResponse,
  SearchBody,
  SearchResponse,
} from '../api/contract.js';
import type { AskStreamEvent, EntityParams, FactParams, GraphParams, ListParams } from '../client/http-client.js';

/**
 * The daemon as the TUI sees it: only the client methods it calls. `MemClient` satisfies it; tests pass a
 * fake that scripts answers, errors and hangs, so every screen can be driven without a daemon.
 */
export interface TuiClient {
  entities(params?: EntityParams): Promise<EntitiesResponse>;
  facts(params?: FactParams): Promise<FactsResponse>;
  graph(params?: GraphParams): Promise<GraphResponse>;
  search(body: SearchBody): Promise<SearchResponse>;
  listMemories(params?: ListParams): Promise<ListResponse>;
  getMemory(id: string): Promise<MemoryResponse>;
  askStream(body: AskBody): AsyncIterable<AskStreamEvent>;
}
