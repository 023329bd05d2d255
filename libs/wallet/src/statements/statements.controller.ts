import { Controller, Get, Param, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import { StatementQueryDto, StatementResponseDto } from '../dto/statement.dto';
import { WalletStatements } from './wallet-statements.service';

export const PDF_MEDIA_TYPE = 'application/pdf';

@ApiTags('Wallet')
@Controller('v1/wallet/statements')
export class StatementsController {
  constructor(private readonly statements: WalletStatements) {}

  @Get(':month')
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'getWalletStatement',
    summary: 'A wallet’s monthly statement (JSON or PDF)',
    description:
      'Opening balances, the month’s movements by kind and closing balances of one wallet (default: the primary one), ' +
      'computed from the ledger with UTC month boundaries: closingAvailable = openingAvailable + topup − held + released + ' +
      'conversionIn − conversionOut and closingReserved = openingReserved + held − captured − released, to the cent. The current ' +
      'month closes at the balances of the moment. With `Accept: application/pdf` the same statement as a PDF carrying the ' +
      'account’s name and sender branding. A month not yet begun is `422`; a malformed month or an unsupported currency `400`.',
  })
  @ApiParam({ name: 'month', description: 'The month, `YYYY-MM` (UTC).', schema: { type: 'string', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', example: '2026-11' } })
  @ApiExtraModels(StatementResponseDto)
  @ApiOkResponse({
    description: 'The statement: JSON, or a PDF document when `Accept` prefers `application/pdf`.',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(StatementResponseDto) } },
      [PDF_MEDIA_TYPE]: { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiErrorResponses(400, 422)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('month') month: string,
    @Query() query: StatementQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StatementResponseDto | StreamableFile> {
    const statement = await this.statements.monthly(principal.accountId, month, query.currency);
    if (request.accepts(['application/json', PDF_MEDIA_TYPE]) !== PDF_MEDIA_TYPE) {
      response.vary('Accept');
      return { statement };
    }
    const pdf = await this.statements.pdf(principal.accountId, statement);
    response.vary('Accept');
    return new StreamableFile(pdf, {
      type: PDF_MEDIA_TYPE,
      disposition: `attachment; filename="statement-${statement.month}-${statement.currency}.pdf"`,
      length: pdf.length,
    });
  }
}
