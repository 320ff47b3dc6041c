import { defineResource } from '../resource';
import * as create from './create.operation';

export const webhookModule = defineResource('Webhook Module', 'webhookModule', [create.operation]);
