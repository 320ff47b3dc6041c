import { defineResource } from '../resource';
import * as getAll from './getAll.operation';

export const webhookFlow = defineResource('Webhook Flow', 'webhookFlow', [getAll.operation]);
