import { runRole } from './entry-point';

/** The Temporal worker alone (scaled-out deployment); migrates the database on start. */
runRole('worker');
